// The setups check: the fast part of the suite once more under each setup contributors have,
// and a table of the results. A stage that only breaks where rg sits in /usr/bin beside node
// (Debian's ripgrep), or where there is no rg at all, or under another Node, shows here.
//
//   node test/harness/setups.mjs           the setup-sensitive unit tests and the gate bench
//   node test/harness/setups.mjs --full    the whole unit tier under each setup (about 7 minutes each)
//
// Setups: this machine as it is; the same with no rg on PATH (a PATH of links to every other
// program, test/harness/hide-program.mjs); VS Code's Node 24 from the test cache first on PATH,
// when `node test/harness/setup.mjs` has put it there; and Debian's Chromium (the browser the
// integration and e2e tiers drive), started headless by playwright-core on a page. A setup that
// cannot be had here is "not run", with why, and the check exits 1, as npm test does.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { findOnPath, pathWithout } from './hide-program.mjs';
import { describeMachine } from './machine.mjs';
import { chromiumPath, node24, repoRoot } from './paths.mjs';
import { mochaTier, removeCompiledTests, userFolderProblems, userFoldersStandIn } from './tiers.mjs';

const full = process.argv.includes('--full');
/** The unit tests whose result depends on the machine: ripgrep or none, PATH, Node, the built command line. */
const SENSITIVE = /^(verify-grep|grep-|search-parity|agent-search-processes|gate\.|verify-cli|cli\.|cli-user-folders|planted-credentials|test-harness|process-host)/;

function unitFiles() {
  const dir = join(repoRoot, 'out', 'test', 'unit');
  // The tests sit in folders that mirror src/; the pattern names a file, whatever its folder.
  return readdirSync(dir, { recursive: true }).filter((f) => f.endsWith('.test.js') && (full || SENSITIVE.test(basename(f)))).map((f) => join('out', 'test', 'unit', f));
}

/** The gate bench at its smoke size: its no-ripgrep stage is what Debian's ripgrep broke. */
function gateBench(env) {
  const started = Date.now();
  const node = findOnPath('node', env.PATH) ?? process.execPath;
  const r = spawnSync(node, ['bench/gate.mjs', '--smoke'], { cwd: repoRoot, env: { ...env, IDEAL_STATE_BENCH_SMOKE: '1' }, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ok = r.status === 0 && /^\{.*\}$/.test(r.stdout.trim().split('\n').at(-1) ?? '');
  if (!ok) console.log(`bench/gate.mjs --smoke exited ${r.status}:\n${(r.stderr || r.stdout).slice(-3000)}`);
  return { passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0, seconds: (Date.now() - started) / 1000 };
}

/** The unit files and the gate bench under `env`, with the user's folders moved to stand-ins. */
function suite(name, env) {
  const standIn = userFoldersStandIn(`ideal-state-setups-${name.replace(/\W+/g, '-')}-`);
  const withStandIn = { ...env, ...standIn.env };
  try {
    const started = Date.now();
    const unit = mochaTier(`setups-${name.replace(/\W+/g, '-')}`, unitFiles(), withStandIn);
    const bench = gateBench(withStandIn);
    const problems = userFolderProblems(standIn.left());
    return { passed: unit.passed + bench.passed, failed: unit.failed + bench.failed + problems.length, skipped: unit.skipped, problems, seconds: (Date.now() - started) / 1000 };
  } finally {
    standIn.remove();
  }
}

/** Debian's Chromium, as the integration and e2e tiers start it, rendering a page. */
async function chromium() {
  const started = Date.now();
  const { launchBrowser } = await import(pathToFileURL(join(repoRoot, 'test', 'harness', 'browser.mjs')).href);
  const browser = await launchBrowser();
  try {
    const page = await browser.newPage();
    await page.setContent('<p id="p">ideal state</p>');
    const text = await page.textContent('#p');
    const ok = text === 'ideal state';
    return { passed: ok ? 1 : 0, failed: ok ? 0 : 1, skipped: 0, seconds: (Date.now() - started) / 1000, what: `Chromium ${browser.version()} rendered a page` };
  } finally {
    await browser.close();
  }
}

const scratch = mkdtempSync(join(tmpdir(), 'ideal-state-setups-'));
const rows = [];
/** One row: its setup said as describeMachine says it, or "not run" with why. */
async function row(name, env, body) {
  console.log(`\n=== setup: ${name} ===`);
  const described = env ? describeMachine(env).line : '';
  if (described) console.log(described);
  try {
    const counts = await body();
    rows.push({ name, described, ...counts });
  } catch (error) {
    console.log(`${name}: not run: ${error.message}`);
    rows.push({ name, described, passed: 0, failed: 0, skipped: 1, seconds: 0, why: error.message });
  }
}

console.log('=== build ===');
removeCompiledTests();
const build = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const asIs = { ...process.env };
const rgHere = findOnPath('rg', asIs.PATH);
await row(`as it is (rg ${rgHere ?? 'none'})`, asIs, () => suite('as-is', asIs));

const noRg = { ...process.env, PATH: pathWithout('rg', join(scratch, 'no-rg'), process.env.PATH) };
await row('no rg on PATH', noRg, () => suite('no-rg', noRg));

const nodeHere = spawnSync(findOnPath('node', asIs.PATH) ?? 'node', ['--version'], { encoding: 'utf8' }).stdout.trim();
const with24 = { ...process.env, PATH: `${dirname(node24)}:${process.env.PATH}` };
await row(`Node 24 from the test cache (this machine's own: ${nodeHere})`, existsSync(node24) ? with24 : undefined, () => {
  if (!existsSync(node24)) throw new Error(`no ${node24}: node test/harness/setup.mjs installs it`);
  return suite('node24', with24);
});

await row(`Debian Chromium (${chromiumPath})`, undefined, () => {
  if (!existsSync(chromiumPath)) throw new Error(`no ${chromiumPath}: apt-get install chromium (node test/harness/setup.mjs does it as root)`);
  return chromium();
});
rmSync(scratch, { recursive: true, force: true });

console.log('\n=== setups ===');
console.log(`${full ? 'the whole unit tier' : `${unitFiles().length} setup-sensitive unit test files`} and bench/gate.mjs --smoke under each; Chromium: a page rendered`);
console.log('| setup | passed | failed | not run | time |');
console.log('| --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.name} | ${r.passed} | ${r.failed} | ${r.skipped}${r.why ? ` (${r.why})` : ''} | ${r.seconds.toFixed(0)} s |`);
for (const r of rows) for (const p of r.problems ?? []) console.log(`${r.name}: ${p}`);
for (const r of rows) if (r.described) console.log(`${r.name}: ${r.described}`);
const failed = rows.reduce((n, r) => n + r.failed, 0);
const notRun = rows.reduce((n, r) => n + r.skipped, 0);
console.log(`${rows.reduce((n, r) => n + r.passed, 0)} passed, ${failed} failed${notRun ? `, ${notRun} not run: not a pass` : ''}`);
process.exitCode = failed > 0 || notRun > 0 ? 1 : 0;
