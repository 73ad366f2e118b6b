import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

/**
 * The engine that finishes runs is not merged yet, so the finished runs a person rates here
 * are written the way the engine will leave them — a run, its criteria, its verification
 * report — into this workspace's store file, through the packaged extension's own
 * dist/engine.js (Store and LearningService), while no VS Code holds the store: the test
 * learns the file from "Show Store Info", stops the server, writes, and starts it again on
 * the same workspace. Nothing in the product exists for this test. `pendingRequest`: the
 * request of the last, unrated run (the one the Ratings view asks about).
 */
export async function seedFinishedRuns(file, { pendingRequest = 'Add a dark mode toggle to the settings page' } = {}) {
  const { Store, LearningService } = require(join(root, 'dist', 'engine.js'));
  // The stopped server's extension host may take a moment to exit and free the writer lock.
  let store;
  for (let attempt = 0; ; attempt++) {
    store = await Store.open({ file, wasmPath: join(root, 'dist', 'sql-wasm.wasm') });
    if (!store.readOnly) break;
    store.close();
    if (attempt === 60) throw new Error(`the store at ${file} is still held by another writer`);
    await new Promise((r) => setTimeout(r, 500));
  }
  try {
    const earlier = [
      ['Add a CSV export button to the reports table', 8],
      ['Fix the off-by-one in the pagination footer', 8],
      ['Rename the greet helper and update its callers', 9],
      ['Document the settings file format in the README', 8],
    ];
    let minute = 0;
    const at = () => new Date(Date.UTC(2026, 10, 10, 9, minute++)).toISOString();
    for (const [request, rating] of earlier) {
      const run = writeRun(store, { request, at: at(), criteria: [['The change is covered by a passing unit test', 'PASS']] });
      const now = new Date(Date.parse(run.finishedAt) + 30_000);
      await new LearningService(store, { version: 'e2e-seed', now: () => now }).rateRun(run.id, { rating });
    }
    return writeRun(store, {
      request: pendingRequest,
      at: at(),
      criteria: [
        ['Settings page shows a dark mode toggle switch', 'PASS'],
        ['Toggle state persists after a page reload', 'FAIL'],
        ['Dark theme applies to modal dialogs too', 'UNKNOWN'],
      ],
    });
  } finally {
    store.close();
  }
}

let seq = 0;
function writeRun(store, { request, at, criteria }) {
  seq += 1;
  const run = {
    id: `run-e2e${String(seq).padStart(4, '0')}`,
    request,
    effort: 'STANDARD',
    state: 'COMPLETE',
    phase: 'LEARN',
    iteration: 1,
    criteriaVersion: 0,
    createdAt: at,
    updatedAt: at,
    startedAt: at,
    finishedAt: at,
    budgetSeconds: 120,
    elapsedMs: 90_000,
  };
  store.batch((r) => {
    r.runs.save(run);
    r.criteria.saveVersion(
      run.id,
      0,
      criteria.map(([text], i) => ({ kind: 'criterion', id: `ISC-${i + 1}`, text, priority: 'CRITICAL', source: 'EXPLICIT', status: 'DONE', createdAt: at, updatedAt: at })),
    );
    r.reports.save({
      id: `report-${run.id}`,
      runId: run.id,
      iteration: 1,
      criteriaVersion: 0,
      results: criteria.map(([, outcome], i) => ({ criterionId: `ISC-${i + 1}`, outcome, evidence: 'seeded', durationMs: 10, locations: [], ...(outcome === 'PASS' ? {} : { failureLabel: 'REQUIREMENT_COVERAGE' }) })),
      passed: criteria.every(([, o]) => o === 'PASS'),
      summary: 'seeded report',
      createdAt: at,
    });
  });
  return run;
}

