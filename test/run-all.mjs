// `npm test`: unit tests in plain Node, integration tests inside the real VS Code
// extension host, e2e tests driving the real workbench. Any failing tier fails the run.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runIntegration } from './harness/integration.mjs';
import { describeMachine } from './harness/machine.mjs';
import { repoRoot, resultsDir } from './harness/paths.mjs';
import { setup } from './harness/setup.mjs';
import { mochaTier, removeCompiledTests, userFolderProblems, userFoldersStandIn, verdict } from './harness/tiers.mjs';
import { packageVsix } from './harness/vsix.mjs';

const tiers = [];

function heading(text) {
  console.log(`\n=== ${text} ===`);
}

/**
 * One tier, its counts added to the run. For its length the user's own state and data
 * folders are moved to empty stand-ins (test/harness/tiers.mjs): whatever a test writes there
 * fails the tier, and the developer's own folders stay as they were.
 */
async function tier(name, body) {
  heading(name);
  const started = Date.now();
  const standIn = userFoldersStandIn(`ideal-state-${name.replace(/\W+/g, '-')}-user-`);
  const saved = Object.fromEntries(Object.keys(standIn.env).map((k) => [k, process.env[k]]));
  Object.assign(process.env, standIn.env);
  let counts;
  try {
    counts = await body();
  } catch (error) {
    console.error(`${name}: ${error.message}`);
    counts = { passed: 0, failed: 1, skipped: 0 };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  const problems = userFolderProblems(standIn.left());
  standIn.remove();
  tiers.push({ name, ...counts, problems, seconds: (Date.now() - started) / 1000 });
}

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: repoRoot, env, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`\`${command} ${args.join(' ')}\` exited with ${result.status}`);
}

const machine = describeMachine();
heading('setup of this machine');
console.log(machine.line);

heading('build and type-check');
// A test renamed or removed since the last build must not keep running from its compiled copy.
removeCompiledTests();
run('node', ['esbuild.mjs']);
run('npx', ['tsc', '--noEmit', '-p', '.']);

// Setup first: besides VS Code it brings the ripgrep that the unit tier's GREP tests compare
// the JS search with (VS Code ships one), so a cold machine runs the same unit tests as a warm one.
let ready = true;
heading('setup: real VS Code');
await setup().catch(() => {
  ready = false;
});

await tier('unit', () => mochaTier('unit', []));

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
  return mochaTier('e2e', ['--config', 'test/e2e/.mocharc.json']);
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
// .vscode-test/hosts and driven by fake model servers; a host that cannot be installed is "not run",
// which the last line says and which fails the run.
await tier('hosts', () => mochaTier('hosts', ['--config', 'test/hosts/.mocharc.json']));

heading('summary');
const result = verdict(tiers);
for (const line of result.lines) console.log(line);
console.log(`setup: ${machine.line}`);
console.log(result.last);
process.exitCode = result.exitCode;
