// The packaged extension as the stores and a person get it: the .vsix's size and file count
// (by folder), whether vsce packaged it without a warning, what Open VSX and the Marketplace
// check of it (bench/harness/vsix-checks.mjs: any problem fails the bench), and its activation
// time after an install from that .vsix.
//
// Activation is measured in one window of the harness's VS Code (code-server), as VS Code
// shows it in the Extensions view of installed extensions (the time beside an activated
// extension: loading the bundle plus the synchronous activate call), and the extension's own
// log line ("activated in N ms": the activate call alone). The same window holds a minimal
// extension (the scripted agent model test fixture: one file, activated onStartupFinished),
// whose figure is the floor a trivial extension pays on this machine in the same run.
// bench/activation.mjs measures activation over several loads and against a baseline commit.
//
// Last line: one JSON object with vsix_bytes, vsix_files, activate_ms and the comparison.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../test/harness/paths.mjs';
import { setup } from '../test/harness/setup.mjs';
import { packageVsix } from '../test/harness/vsix.mjs';
import { Workbench } from '../test/harness/workbench.mjs';
import { storeProblems } from './harness/vsix-checks.mjs';
import { smoke } from './harness/smoke.mjs';

const ACTIVATION_TIMEOUT_MS = 60_000;
const MINIMAL = 'Ideal State tests: scripted agent model';

/** The package's entries (path and uncompressed size), as `unzip -Z` lists them. */
function entries(vsix) {
  const listed = spawnSync('unzip', ['-Z', '-l', vsix], { encoding: 'utf8' });
  if (listed.status !== 0) throw new Error(`unzip -Z ${vsix} failed (${listed.error?.message ?? listed.stderr.trim()}): unzip is needed to read the package`);
  return listed.stdout
    .split('\n')
    .map((l) => /^[-d][rwx-]{9}\s+\S+\s+\S+\s+(\d+)\s+\S+\s+\d+\s+\S+\s+\S+\s+\S+\s+(.+)$/.exec(l))
    .filter(Boolean)
    .map((m) => ({ path: m[2], bytes: Number(m[1]) }))
    .filter((e) => !e.path.endsWith('/'));
}

function readEntry(vsix, path) {
  const out = spawnSync('unzip', ['-p', vsix, path], { maxBuffer: 64 << 20 });
  if (out.status !== 0) throw new Error(`unzip -p ${vsix} ${path} failed`);
  return out.stdout;
}

/** VS Code's activation figure of an installed extension, from its row in Extensions: Installed. */
async function installedActivationMs(workbench, name) {
  const row = workbench.page.locator('.extensions-viewlet .monaco-list-row').filter({ hasText: name }).first();
  const deadline = Date.now() + ACTIVATION_TIMEOUT_MS;
  let seen = '(no row)';
  for (;;) {
    if (await row.isVisible().catch(() => false)) {
      seen = (await row.innerText()).replace(/\s+/g, ' ').trim();
      const match = /(\d+)\s*ms\b/.exec(seen);
      if (match) return Number(match[1]);
    }
    if (Date.now() > deadline) throw new Error(`no activation time for ${name} in Extensions: Installed within ${ACTIVATION_TIMEOUT_MS / 1000} s; its row: ${seen}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

function activateCallMs(workbench) {
  const found = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name === 'Ideal State.log') found.push(...readFileSync(path, 'utf8').split('\n').map((l) => /activated in ([\d.]+) ms/.exec(l)?.[1]).filter(Boolean).map(Number));
    }
  };
  walk(join(workbench.profile.userDataDir, 'logs'));
  return found.at(-1) ?? null;
}

await setup();
const vsix = process.env.IDEAL_STATE_BENCH_VSIX ? { path: process.env.IDEAL_STATE_BENCH_VSIX, bytes: statSync(process.env.IDEAL_STATE_BENCH_VSIX).size } : packageVsix();

// vsce's own checks: the package step of `npm run package` run again into a scratch file, to
// read what vsce says (a warning is a WARNING line); then without each of the two flags that
// stand in for a repository, to record what vsce says without them: --allow-missing-repository
// (there is no public repository to name) and --no-rewrite-relative-links (vsce would rewrite
// the README's image paths to the repository's URL, and with none it refuses them).
const script = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts.package;
const flags = /vsce package (.*?) --out /.exec(script)?.[1]?.split(/\s+/) ?? [];
const scratch = mkdtempSync(join(tmpdir(), 'ideal-state-bench-vsix-'));
const vsce = (args) => {
  const run = spawnSync('npx', ['vsce', 'package', ...args, '--out', join(scratch, 'x.vsix')], { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: run.status, said: `${run.stdout}${run.stderr}`.replace(/\x1b\[[0-9;]*m/g, '') };
};
const packaged = vsce(flags);
const vsceWarnings = packaged.said.split('\n').filter((l) => /WARNING/i.test(l)).map((l) => l.trim());
if (packaged.code !== 0) vsceWarnings.push(`vsce package ${flags.join(' ')} failed (exit ${packaged.code}): ${packaged.said.trim().split('\n').at(-1)}`);
const strict = vsce(flags.filter((f) => f !== '--allow-missing-repository'));
const withoutRepositoryFlag = strict.said.split('\n').filter((l) => /WARNING|ERROR/.test(l)).map((l) => l.trim()).join(' ');
const rewriting = vsce(flags.filter((f) => f !== '--no-rewrite-relative-links'));
const withRewriting = rewriting.said.split('\n').filter((l) => /WARNING|ERROR/.test(l)).map((l) => l.trim()).join(' ');
rmSync(scratch, { recursive: true, force: true });

const files = entries(vsix.path);
const manifest = JSON.parse(readEntry(vsix.path, 'extension/package.json').toString('utf8'));
const problems = storeProblems(manifest, files.map((f) => f.path), (p) => readEntry(vsix.path, p));
const byFolder = {};
for (const f of files) {
  const top = f.path.split('/').slice(0, 3).join('/').replace(/^extension\/(dist|media|isc-definitions)\/.*$/, 'extension/$1/');
  const key = /\/$/.test(top) ? top : f.path.startsWith('extension/media/') ? 'extension/media/' : 'the rest';
  byFolder[key] = (byFolder[key] ?? 0) + f.bytes;
}
const readmeImages = files.filter((f) => f.path.startsWith('extension/media/readme/')).reduce((n, f) => n + f.bytes, 0);

const workbench = await Workbench.open({ trusted: true, agentModel: true });
let ideal;
let minimal;
let call;
try {
  await workbench.runCommand('Extensions: Show Installed Extensions');
  ideal = await installedActivationMs(workbench, 'Ideal State');
  minimal = await installedActivationMs(workbench, MINIMAL);
  call = activateCallMs(workbench);
} finally {
  await workbench.close();
}

const kb = (n) => `${(n / 1024).toFixed(0)} KB`;
console.log(`.vsix ${kb(vsix.bytes)} compressed, ${files.length} files, ${kb(files.reduce((n, f) => n + f.bytes, 0))} unpacked: ${Object.entries(byFolder).map(([k, v]) => `${k} ${kb(v)}`).join(', ')} (README images ${kb(readmeImages)})`);
console.log(`vsce (${flags.join(' ')}): ${vsceWarnings.length === 0 ? 'no warning' : vsceWarnings.join(' | ')}; without --allow-missing-repository: ${withoutRepositoryFlag || 'no warning'} (exit ${strict.code}); without --no-rewrite-relative-links: ${withRewriting || 'no warning'} (exit ${rewriting.code}); store checks: ${problems.length === 0 ? 'none failed' : problems.join(' | ')}`);
console.log(`activation after an install from the .vsix (VS Code's figure in Extensions: Installed, one window${smoke ? ', smoke' : ''}): Ideal State ${ideal} ms (its activate call ${call} ms), the minimal extension ${minimal} ms`);
console.log(JSON.stringify({
  vsix_bytes: vsix.bytes,
  vsix_files: files.length,
  unpacked_bytes: files.reduce((n, f) => n + f.bytes, 0),
  unpacked_by_folder: byFolder,
  readme_image_bytes: readmeImages,
  vsce_warnings: vsceWarnings.length,
  vsce_flags: flags,
  vsce_without_allow_missing_repository: { exit: strict.code, said: withoutRepositoryFlag },
  vsce_without_no_rewrite_relative_links: { exit: rewriting.code, said: withRewriting },
  store_problems: problems,
  activate_ms: ideal,
  activate_call_ms: call,
  minimal_extension_activate_ms: minimal,
  activation_source: "VS Code's figure in Extensions: Installed (bundle load + activate), one window of code-server; activate_call_ms from the extension's log",
}));
if (problems.length > 0 || vsceWarnings.length > 0) process.exit(1);
