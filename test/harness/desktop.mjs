// `npm run test:desktop`: the same integration suites in desktop VS Code, downloaded by
// @vscode/test-electron (needs internet; the machines here use integration.mjs instead).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runTests } from '@vscode/test-electron';
import { repoRoot } from './paths.mjs';
import { copySampleWorkspace, makeProfile, removeProfile } from './server.mjs';

const build = spawnSync('node', ['esbuild.mjs'], { cwd: repoRoot, stdio: 'inherit' });
if (build.status !== 0) process.exit(1);

const profile = makeProfile({ trusted: true });
const workspace = copySampleWorkspace(profile);
const totals = { passed: 0, failed: 0 };
try {
  // Two launches on one user-data folder and workspace: the second is the window reload.
  for (const phase of ['first', 'reload']) {
    const results = join(profile.root, `results-${phase}.json`);
    await runTests({
      // The second folder contributes the vendor of the scripted chat model the vscode.lm suite registers.
      extensionDevelopmentPath: [repoRoot, join(repoRoot, 'test', 'fixtures', 'scripted-chat-vendor')],
      extensionTestsPath: join(repoRoot, 'out', 'test', 'integration', 'index.js'),
      launchArgs: [workspace, '--user-data-dir', profile.userDataDir, '--extensions-dir', profile.extensionsDir],
      extensionTestsEnv: {
        IDEAL_STATE_TEST_PHASE: phase,
        IDEAL_STATE_TEST_RESULTS: results,
        IDEAL_STATE_TEST_HANDOFF: join(profile.root, 'handoff'),
        IDEAL_STATE_TEST_USER_DATA: profile.userDataDir,
      },
    }).catch(() => {}); // failures are counted from the results file below
    const counts = existsSync(results) ? JSON.parse(readFileSync(results, 'utf8')) : { passed: 0, failed: 1 };
    totals.passed += counts.passed;
    totals.failed += counts.failed;
  }
} finally {
  removeProfile(profile);
}
console.log(`desktop integration: ${totals.passed} passed, ${totals.failed} failed`);
process.exitCode = totals.failed > 0 ? 1 : 0;
