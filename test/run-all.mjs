// `npm test`: unit tests in plain Node, integration tests inside the real VS Code
// extension host, e2e tests driving the real workbench. Any failing tier fails the run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runIntegration } from './harness/integration.mjs';
import { repoRoot, resultsDir } from './harness/paths.mjs';
import { setup } from './harness/setup.mjs';
import { packageVsix } from './harness/vsix.mjs';

const tiers = [];

function heading(text) {
  console.log(`\n=== ${text} ===`);
}

async function tier(name, body) {
  heading(name);
  const started = Date.now();
  let counts;
  try {
    counts = await body();
  } catch (error) {
    console.error(`${name}: ${error.message}`);
    counts = { passed: 0, failed: 1, skipped: 0 };
  }
  tiers.push({ name, ...counts, seconds: (Date.now() - started) / 1000 });
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` exited with ${result.status}`);
}

/** Mocha in a child process with the tally reporter; a crash before any test counts as a failure. */
function mocha(name, extraArgs) {
  mkdirSync(resultsDir, { recursive: true });
  const tally = join(resultsDir, `${name}-tally.json`);
  rmSync(tally, { force: true });
  const args = ['mocha', '--reporter', join(repoRoot, 'test/harness/tally-reporter.cjs'), ...extraArgs];
  if (process.env.CI) args.push('--forbid-only');
  // The tier's temporary folders (thousands of test workspaces and stores) go in one folder, removed after it.
  const scratch = mkdtempSync(join(tmpdir(), `ideal-state-${name}-tier-`));
  const result = spawnSync('npx', args, { cwd: repoRoot, env: { ...process.env, IDEAL_STATE_TALLY: tally, TMPDIR: scratch }, stdio: 'inherit' });
  rmSync(scratch, { recursive: true, force: true, maxRetries: 3 });
  if (!existsSync(tally)) throw new Error(`mocha exited with ${result.status} before reporting results`);
  const counts = JSON.parse(readFileSync(tally, 'utf8'));
  if (result.status !== 0 && counts.failed === 0) counts.failed = 1; // e.g. forbidOnly tripped
  return counts;
}

function summary() {
  heading('summary');
  const total = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tiers) {
    const skipped = t.skipped ? `, ${t.skipped} skipped` : '';
    console.log(`${t.name}: ${t.passed} passed, ${t.failed} failed${skipped} (${t.seconds.toFixed(1)} s)`);
    for (const key of Object.keys(total)) total[key] += t[key];
  }
  console.log(`${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
  return total;
}

heading('build and type-check');
run('node', ['esbuild.mjs']);
run('npx', ['tsc', '--noEmit', '-p', '.']);

// Setup first: besides VS Code it brings the ripgrep that the unit tier's GREP tests compare
// the JS search with (VS Code ships one), so a cold machine runs the same unit tests as a warm one.
let ready = true;
heading('setup: real VS Code');
await setup().catch(() => {
  ready = false;
});

await tier('unit', () => mocha('unit', []));

await tier('integration', async () => {
  if (!ready) throw new Error('VS Code is not set up (see [setup] above)');
  return runIntegration();
});

let packaged;
await tier('e2e', async () => {
  if (!ready) throw new Error('VS Code is not set up (see [setup] above)');
  const vsix = packageVsix();
  packaged = vsix.path;
  console.log(`packaged ${vsix.path} (${vsix.bytes} bytes)`);
  return mocha('e2e', ['--config', 'test/e2e/.mocharc.json']);
});

// Every benchmark at a small size (bench/run.mjs --smoke): each still measures the product as
// it is and prints its JSON line. No figure is checked. The activation bench reuses the .vsix
// the e2e tier just packaged.
await tier('bench smoke', async () => {
  if (!ready) throw new Error('VS Code is not set up (see [setup] above)');
  mkdirSync(resultsDir, { recursive: true });
  const tally = join(resultsDir, 'bench-smoke-tally.json');
  rmSync(tally, { force: true });
  const env = { ...process.env, IDEAL_STATE_BENCH_TALLY: tally, ...(packaged ? { IDEAL_STATE_BENCH_VSIX: packaged } : {}) };
  spawnSync('node', ['bench/run.mjs', '--smoke'], { cwd: repoRoot, env, stdio: 'inherit' });
  if (!existsSync(tally)) throw new Error('bench/run.mjs --smoke exited before reporting results');
  return JSON.parse(readFileSync(tally, 'utf8'));
});

// The agent hosts' real programs (Claude Code, Codex, Gemini CLI, ...), installed from npm into
// .vscode-test/hosts and driven by fake model servers; a host that cannot be installed is skipped.
await tier('hosts', () => mocha('hosts', ['--config', 'test/hosts/.mocharc.json']));

const total = summary();
process.exitCode = total.failed > 0 ? 1 : 0;
