// What `npm test` (test/run-all.mjs) and the setups check (test/harness/setups.mjs) share: a
// mocha tier in a child process, the user's own folders kept out of reach of every tier, and
// the verdict of a run. A green run means every test ran and passed: a test that was not run
// (its host could not be installed, a program was missing) is said, and fails the run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { findOnPath } from './hide-program.mjs';
import { repoRoot, resultsDir } from './paths.mjs';

/**
 * Mocha in a child process with the tally reporter; a crash before any test counts as a
 * failure. `.only` is refused on every machine, not only under CI: a forgotten `.only` would
 * run one test and call the tier green.
 */
export function mochaTier(name, extraArgs, env = process.env) {
  mkdirSync(resultsDir, { recursive: true });
  const tally = join(resultsDir, `${name}-tally.json`);
  rmSync(tally, { force: true });
  const args = [join(repoRoot, 'node_modules', 'mocha', 'bin', 'mocha.js'), '--reporter', join(repoRoot, 'test/harness/tally-reporter.cjs'), '--forbid-only', ...extraArgs];
  // The tier's temporary folders (thousands of test workspaces and stores) go in one folder, removed after it.
  const scratch = mkdtempSync(join(tmpdir(), `ideal-state-${name}-tier-`));
  // Mocha started by the first node on the tier's PATH, not through npx: npm puts the folder of
  // its own Node (/usr/bin) first on PATH, which would bring back a program the tier hid.
  const node = findOnPath('node', env.PATH) ?? process.execPath;
  const result = spawnSync(node, args, { cwd: repoRoot, env: { ...env, IDEAL_STATE_TALLY: tally, TMPDIR: scratch }, stdio: 'inherit' });
  rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  if (!existsSync(tally)) throw new Error(`mocha exited with ${result.status} before reporting results`);
  const counts = JSON.parse(readFileSync(tally, 'utf8'));
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1; // e.g. forbidOnly tripped
  return counts;
}

/** Compiled tests of an earlier build: a test renamed or deleted since would still run from out/test. */
export function removeCompiledTests(root = repoRoot) {
  rmSync(join(root, 'out', 'test'), { recursive: true, force: true, maxRetries: 3 });
}

/**
 * The user's own state and data folders, as the product finds them on Linux (XDG_STATE_HOME,
 * XDG_DATA_HOME), moved for the length of a tier to empty folders of the run's own. A test
 * that forgot its temporary state folder then writes there, not into the developer's
 * `~/.local/state/ideal-state` (whose denied-command records would also change its result),
 * and `left()` names what it wrote, which fails the tier.
 */
export function userFoldersStandIn(prefix = 'ideal-state-user-') {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const env = { XDG_STATE_HOME: join(root, 'state'), XDG_DATA_HOME: join(root, 'data') };
  const product = [join(env.XDG_STATE_HOME, 'ideal-state'), join(env.XDG_DATA_HOME, 'ideal-state')];
  return {
    env,
    /** Files a tier left in the stand-ins' `ideal-state` folders, relative to the stand-in root. */
    left: () => product.flatMap((dir) => filesUnder(dir)).map((f) => relative(root, f)),
    remove: () => rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

function filesUnder(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

/**
 * The tier's problems beyond its failed tests: what it left in the user's folders. Each
 * counts as one failure.
 */
export function userFolderProblems(left) {
  if (left.length === 0) return [];
  const shown = left.slice(0, 5).join(', ');
  return [`wrote into the user's own state or data folder (a test without its temporary IDEAL_STATE_STATE_DIR or data folder): ${shown}${left.length > 5 ? `, and ${left.length - 5} more` : ''}`];
}

/**
 * The run's verdict from its tiers ({ name, passed, failed, skipped, seconds, problems? }):
 * one line per tier, the last line, and the exit code. Tests that were skipped were not run
 * (a host that could not be installed, a missing program): the last line says how many and
 * the run exits 1, so a tier of skips is never a green run. Under CI such a tier is failed.
 */
export function verdict(tiers, { ci = Boolean(process.env.CI) } = {}) {
  const total = { passed: 0, failed: 0, skipped: 0 };
  const lines = [];
  for (const t of tiers) {
    // A tier that ran nothing (a spec that matched no file) proves nothing: not a pass.
    const ranNothing = t.passed + t.failed + t.skipped === 0 ? ['ran no test at all'] : [];
    const problems = [...ranNothing, ...(t.problems ?? [])];
    const failed = t.failed + problems.length + (ci && t.skipped > 0 ? 1 : 0);
    const notRun = t.skipped ? `, ${t.skipped} not run` : '';
    const mark = failed > 0 ? 'FAILED' : t.skipped > 0 ? 'NOT ALL RUN' : 'ok';
    lines.push(`${t.name}: ${t.passed} passed, ${failed} failed${notRun} (${(t.seconds ?? 0).toFixed(1)} s) ${mark}`);
    for (const p of problems) lines.push(`  ${t.name}: ${p}`);
    if (ci && t.skipped > 0) lines.push(`  ${t.name}: ${t.skipped} test(s) not run, which fails the tier under CI (see "not run:" above for why)`);
    total.passed += t.passed;
    total.failed += failed;
    total.skipped += t.skipped;
  }
  const notRunTiers = tiers.filter((t) => t.skipped > 0).map((t) => t.name);
  const last = `${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} not run (${notRunTiers.join(', ')}): not a pass` : ''}`;
  return { lines, last, exitCode: total.failed > 0 || total.skipped > 0 ? 1 : 0, total };
}
