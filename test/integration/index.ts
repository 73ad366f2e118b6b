// Mocha entry point that VS Code loads inside the real extension host (extensionTestsPath).
// The host exits when run() settles, so results go to a JSON file the runner reads.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

interface TestOutcome {
  title: string;
  state: 'passed' | 'failed' | 'skipped';
  error?: string;
}

export interface IntegrationResults {
  passed: number;
  failed: number;
  skipped: number;
  tests: TestOutcome[];
}

/**
 * Launch 'first' runs every suite but the after-reload ones; launch 'reload' runs only those.
 * `*.before-reload` suites run last in the first launch: what they leave going (a run in
 * the middle of a phase) is cut off by the reload, as a person's reload would cut it off.
 * IDEAL_STATE_TEST_ONLY (comma-separated file name prefixes, e.g. "run-commands,staleness")
 * narrows both launches while working on a few suites; CI never sets it.
 */
function suiteFiles(phase: string): string[] {
  const afterReload = (name: string) => name.endsWith('.after-reload.test.js');
  const beforeReload = (name: string) => name.endsWith('.before-reload.test.js');
  const only = (process.env.IDEAL_STATE_TEST_ONLY ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  return fs
    .readdirSync(__dirname)
    .filter((name) => name.endsWith('.test.js'))
    .filter((name) => only.length === 0 || only.some((prefix) => name.startsWith(prefix)))
    .filter((name) => (phase === 'reload' ? afterReload(name) : !afterReload(name)))
    .sort((a, b) => Number(beforeReload(a)) - Number(beforeReload(b)) || a.localeCompare(b))
    .map((name) => path.join(__dirname, name));
}

function writeResults(results: IntegrationResults): void {
  const file = process.env.IDEAL_STATE_TEST_RESULTS ?? path.resolve(__dirname, '../../../test-results/integration-results.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(results, null, 2));
}

export function run(): Promise<void> {
  const results: IntegrationResults = { passed: 0, failed: 0, skipped: 0, tests: [] };
  const fullTitle = (test: Mocha.Runnable) => test.titlePath().join(' › ');
  return new Promise((resolve, reject) => {
    try {
      // `.only` is refused everywhere, not only under CI: it would run one suite and call the tier green.
      const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 30_000, forbidOnly: true });
      for (const file of suiteFiles(process.env.IDEAL_STATE_TEST_PHASE ?? 'first')) mocha.addFile(file);
      mocha
        .run((failures) => {
          writeResults(results);
          if (failures > 0) reject(new Error(`${failures} integration test(s) failed`));
          else resolve();
        })
        .on('pass', (test) => {
          results.passed += 1;
          results.tests.push({ title: fullTitle(test), state: 'passed' });
        })
        .on('fail', (test, error) => {
          results.failed += 1;
          results.tests.push({ title: fullTitle(test), state: 'failed', error: error.stack ?? String(error) });
        })
        .on('pending', (test) => {
          results.skipped += 1;
          results.tests.push({ title: fullTitle(test), state: 'skipped' });
        });
    } catch (error) {
      // A suite that throws while loading is a failure, not a silent empty run.
      results.failed += 1;
      results.tests.push({ title: 'loading the integration suites', state: 'failed', error: (error as Error).stack ?? String(error) });
      writeResults(results);
      reject(error);
    }
  });
}
