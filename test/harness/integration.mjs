// Runs the integration suites (test/integration) inside the real VS Code extension host:
// launch 1 runs every suite, launch 2 reopens the same user data and workspace (a window
// reload) and runs the *.after-reload suites. Results come back through a JSON file.
//
//   node test/harness/integration.mjs        (after `node esbuild.mjs` and the setup)
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchBrowser } from './browser.mjs';
import { repoRoot, resultsDir } from './paths.mjs';
import { copySampleWorkspace, freePort, makeProfile, removeProfile, startServer } from './server.mjs';

const PHASES = ['first', 'reload'];
// A whole phase's bound, not a test's (each test has mocha's own timeout): the first phase runs
// every suite, about 3 minutes on an idle 2-core machine, so a busy one needs room.
const TIMEOUT_MS = Number(process.env.IDEAL_STATE_INTEGRATION_TIMEOUT_MS ?? 900_000);
const HOST_EXIT = /Extension Host Process exited with code: (\d+|null)/;
const testEntry = join(repoRoot, 'out', 'test', 'integration', 'index.js');
// A test-only extension that contributes the vendor of the scripted chat model the vscode.lm
// suite registers (VS Code takes a chat provider only for a contributed vendor). It goes in
// the profile's extensions folder: the web workbench keeps one extensionDevelopmentPath.
const scriptedChatVendor = join(repoRoot, 'test', 'fixtures', 'scripted-chat-vendor');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits for the results file; a host that exits without one, or a timeout, is a failure. */
async function awaitResults(server, resultsFile) {
  const deadline = Date.now() + TIMEOUT_MS;
  let exitSeenAt;
  for (;;) {
    if (existsSync(resultsFile)) {
      try {
        return JSON.parse(readFileSync(resultsFile, 'utf8'));
      } catch {
        // still being written
      }
    }
    const exit = HOST_EXIT.exec(server.output());
    exitSeenAt ??= exit ? Date.now() : undefined;
    if (exit && Date.now() - exitSeenAt > 2_000) {
      return crashed(`the extension host exited with code ${exit[1]} without writing results`);
    }
    if (Date.now() > deadline) return crashed(`no results after ${TIMEOUT_MS / 1000} s (the suites hung or never started)`);
    await sleep(250);
  }
}

function crashed(reason) {
  return { passed: 0, failed: 1, skipped: 0, tests: [{ title: 'integration run', state: 'failed', error: reason }] };
}

async function runPhase({ phase, profile, workspace, browser, port }) {
  const resultsFile = join(profile.root, `results-${phase}.json`);
  rmSync(resultsFile, { force: true });
  const server = await startServer({
    profile,
    port,
    logFile: join(profile.root, `server-${phase}.log`),
    // The server passes its environment on to the extension host the suites run in.
    env: {
      IDEAL_STATE_TEST_PHASE: phase,
      IDEAL_STATE_TEST_RESULTS: resultsFile,
      IDEAL_STATE_TEST_HANDOFF: join(profile.root, 'handoff'),
      IDEAL_STATE_TEST_USER_DATA: profile.userDataDir,
      // The criteria lock and the gate's records go to the profile, never the tester's own state folder.
      IDEAL_STATE_STATE_DIR: join(profile.root, 'state'),
    },
  });
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(server.url(workspace, [
      ['extensionDevelopmentPath', server.remoteUri(repoRoot)],
      ['extensionTestsPath', server.remoteUri(testEntry)],
    ]));
    return await awaitResults(server, resultsFile);
  } finally {
    await context.close();
    await server.stop();
  }
}

function print(results, phase) {
  for (const test of results.tests) {
    const mark = { passed: '✓', failed: '✗', skipped: '-' }[test.state];
    console.log(`  ${mark} ${test.title}${phase === 'reload' ? ' (after reload)' : ''}`);
    if (test.error) console.log(`      ${test.error.split('\n').slice(0, 8).join('\n      ')}`);
  }
}

function keepLogs(profile) {
  const target = join(resultsDir, 'integration');
  rmSync(target, { recursive: true, force: true });
  mkdirSync(target, { recursive: true });
  for (const phase of PHASES) {
    const log = join(profile.root, `server-${phase}.log`);
    if (existsSync(log)) cpSync(log, join(target, `server-${phase}.log`));
  }
  const logs = join(profile.userDataDir, 'logs');
  if (existsSync(logs)) cpSync(logs, join(target, 'logs'), { recursive: true });
  console.log(`  logs kept in ${target}`);
}

/** Runs both launches; resolves with totals { passed, failed, skipped }. */
export async function runIntegration() {
  if (!existsSync(testEntry)) throw new Error(`${testEntry} is missing; run \`node esbuild.mjs\` first`);
  const profile = makeProfile({ trusted: true });
  const workspace = copySampleWorkspace(profile);
  cpSync(scriptedChatVendor, join(profile.extensionsDir, 'ideal-state-tests.scripted-chat-vendor-0.0.1'), { recursive: true });
  const browser = await launchBrowser();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const port = await freePort(); // both launches on one port, as a reload of one window
  try {
    for (const phase of PHASES) {
      const results = await runPhase({ phase, profile, workspace, browser, port });
      print(results, phase);
      totals.passed += results.passed;
      totals.failed += results.failed;
      totals.skipped += results.skipped;
    }
  } finally {
    await browser.close();
    if (totals.failed > 0) keepLogs(profile);
    removeProfile(profile);
  }
  return totals;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const totals = await runIntegration();
  console.log(`integration: ${totals.passed} passed, ${totals.failed} failed`);
  process.exitCode = totals.failed > 0 ? 1 : 0;
}
