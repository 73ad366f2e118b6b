import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);

/**
 * A week of history written into a workspace's store file through the packaged extension's
 * own dist/engine.js (its Store), while no VS Code holds the store, as seed-finished-runs.mjs
 * does: runs of two PRDs in four end states with criteria and model usage, ratings, the gate's
 * verdicts from two hosts (one stop with a TAMPERED criterion) and a loop of three iterations.
 * Returns the figures, counted here as the rows are written (not by the product's sums), for
 * the test to find on the page.
 */
export async function seedDashboard(file) {
  const { Store } = require(join(root, 'dist', 'engine.js'));
  let store;
  for (let attempt = 0; ; attempt++) {
    store = await Store.open({ file, wasmPath: join(root, 'dist', 'sql-wasm.wasm') });
    if (!store.readOnly) break;
    store.close();
    if (attempt === 60) throw new Error(`the store at ${file} is still held by another writer`);
    await new Promise((r) => setTimeout(r, 500));
  }
  const figures = { runs: 0, complete: 0, passed: 0, criteria: 0, inputTokens: 0, outputTokens: 0, usdMicro: 0, days: 7, prds: ['docs/PRD-checkout.md', 'docs/PRD-search.md'] };
  const states = ['COMPLETE', 'COMPLETE', 'FAILED', 'COMPLETE', 'BUDGET_EXHAUSTED', 'COMPLETE', 'CANCELLED'];
  try {
    store.batch((tx) => {
      let n = 0;
      for (let day = 0; day < 7; day++) {
        for (let k = 0; k < 3 + (day % 3); k++) {
          n++;
          const start = new Date(Date.UTC(2026, 10, 20 + day, 9 + k, 0));
          const minutes = 3 + ((n * 7) % 11);
          const state = states[n % states.length];
          const prdPath = figures.prds[n % 2];
          const at = start.toISOString();
          const id = `run-dash${String(n).padStart(4, '0')}`;
          tx.runs.save({ id, request: n % 2 ? `Search results page, step ${n}` : `Checkout flow, step ${n}`, effort: 'STANDARD', state, phase: 'LEARN', iteration: 1, criteriaVersion: 1, prdPath, createdAt: at, updatedAt: at, startedAt: at, finishedAt: new Date(start.getTime() + minutes * 60_000).toISOString(), budgetSeconds: 1800, elapsedMs: minutes * 60_000 });
          const count = 4;
          const passing = state === 'COMPLETE' ? 4 : n % 3;
          tx.criteria.saveVersion(
            id,
            1,
            Array.from({ length: count }, (_, i) => ({ kind: 'criterion', id: `ISC-${i + 1}`, text: `${prdPath.includes('search') ? 'Search' : 'Checkout'} criterion ${i + 1} holds`, priority: 'CRITICAL', source: 'EXPLICIT', status: 'DONE', outcome: i < passing ? 'PASS' : 'FAIL', createdAt: at, updatedAt: at })),
          );
          const input = 2000 + n * 100;
          const output = 300 + n * 10;
          const micro = 1000 + n * 250; // millionths of a dollar
          tx.events.save({ runId: id, seq: 1, at, phase: 'BUILD', kind: 'model', message: 'call', inputTokens: input, outputTokens: output, costUsd: micro / 1e6 });
          if (n % 3 === 0) tx.ratings.save({ id: `rating-dash${n}`, runId: id, timestamp: new Date(start.getTime() + 20 * 60_000).toISOString(), rating: 5 + (n % 5), sessionId: 'e2e', type: 'explicit' });
          figures.runs++;
          if (state === 'COMPLETE') figures.complete++;
          figures.passed += passing;
          figures.criteria += count;
          figures.inputTokens += input;
          figures.outputTokens += output;
          figures.usdMicro += micro;
        }
      }
      const verdicts = [
        ['claude-code', 'passed'], ['claude-code', 'blocked'], ['claude-code', 'blocked'], ['claude-code', 'passed'],
        ['codex', 'blocked'], ['codex', 'released'], ['gemini', 'passed'],
      ];
      verdicts.forEach(([host, verdict], i) => {
        const tampered = i === 4 ? ['ISC-2'] : [];
        tx.gateOutcomes.save({ id: `gate-dash${i}`, at: new Date(Date.UTC(2026, 10, 20 + i, 15, 0)).toISOString(), host, event: 'Stop', session: 'session 0e2e0e2e', verdict, before: 0, prds: [{ path: figures.prds[0], tampered }] });
      });
      const entry = (iteration, passing) => ({ iteration, at: new Date(Date.UTC(2026, 10, 23 + iteration, 8)).toISOString(), effort: 'STANDARD', passing, total: 12, failing: [], message: `iteration ${iteration}: ${passing}/12 artifacts passing` });
      tx.loops.save({ id: 'loop-dash01', spec: { glob: 'docs/**/*.md', isc: 'docs.page', agents: 2, effort: 'STANDARD', maxIterations: 3, verifyOnly: false }, state: 'COMPLETE', iteration: 3, effort: 'STANDARD', criterionIds: ['ISC-1'], total: 12, passing: 12, budgetSeconds: 3600, elapsedMs: 60_000, log: [entry(1, 5), entry(2, 9), entry(3, 12)], unmet: [], createdAt: '2026-11-24T08:00:00.000Z', updatedAt: '2026-11-26T08:00:00.000Z' });
    });
  } finally {
    store.close();
  }
  return { ...figures, hosts: { 'claude-code': [4, 2, 2, 0], codex: [2, 0, 1, 1], gemini: [1, 1, 0, 0] }, tampered: 1, loopDeltas: ['+5', '+4', '+3'] };
}
