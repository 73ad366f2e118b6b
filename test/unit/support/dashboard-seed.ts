import type { AnyCriterion, Loop, RunEvent } from '../../../src/model';
import type { GateOutcomeRecord } from '../../../src/model/gate-outcome';
import type { Store } from '../../../src/store/store';
import { aCriterion, aRun } from './builders';

/**
 * A store with known history for the dashboard's tests: four runs on two days (two of them of
 * one PRD, re-verified as a second criteria version), model usage, ratings (one imported, with
 * no run), three gate verdicts from two hosts (one with a TAMPERED criterion) and a loop of three
 * iterations. The figures each test expects are worked out by hand from these rows.
 */
export const LOGIN_PRD = 'docs/PRD-login.md';

const loginText = (n: number) => `Login page criterion ${n} holds`;
const c = (id: string, outcome: AnyCriterion['outcome'], text = loginText(Number(id.slice(4)))): AnyCriterion => aCriterion({ id, text, outcome });

function model(runId: string, seq: number, inputTokens: number, outputTokens: number, costUsd: number, extra: Partial<RunEvent> = {}): RunEvent {
  return { runId, seq, at: '2026-11-01T10:01:00.000Z', kind: 'model', phase: 'BUILD', message: 'call', inputTokens, outputTokens, costUsd, ...extra };
}

export function seedDashboardStore(store: Store): { runA: string; runB: string; runC: string; runD: string } {
  const runA = aRun({ id: 'run-aaaaaa1', prdPath: LOGIN_PRD, state: 'COMPLETE', createdAt: '2026-11-01T10:00:00.000Z', startedAt: '2026-11-01T10:00:00.000Z', finishedAt: '2026-11-01T10:04:00.000Z', criteriaVersion: 2 });
  const runB = aRun({ id: 'run-bbbbbb1', prdPath: LOGIN_PRD, state: 'FAILED', createdAt: '2026-11-01T12:00:00.000Z', startedAt: '2026-11-01T12:00:00.000Z', finishedAt: '2026-11-01T12:30:00.000Z', criteriaVersion: 1 });
  const runC = aRun({ id: 'run-cccccc1', request: 'Write the docs page', state: 'COMPLETE', createdAt: '2026-11-02T09:00:00.000Z', startedAt: '2026-11-02T09:00:00.000Z', finishedAt: '2026-11-02T09:10:00.000Z', criteriaVersion: 1 });
  const runD = aRun({ id: 'run-dddddd1', prdPath: LOGIN_PRD, state: 'RUNNING', createdAt: '2026-11-02T11:00:00.000Z' });
  store.batch((tx) => {
    for (const run of [runA, runB, runC, runD]) tx.runs.save(run);
    // Run A failed twice at first (version 1), then passed everything (version 2): only version 2 counts.
    tx.criteria.saveVersion(runA.id, 1, [c('ISC-1', 'FAIL'), c('ISC-2', 'FAIL')]);
    tx.criteria.saveVersion(runA.id, 2, [c('ISC-1', 'PASS'), c('ISC-2', 'PASS'), c('ISC-3', 'PASS')]);
    tx.criteria.saveVersion(runB.id, 1, [c('ISC-1', 'PASS'), c('ISC-2', 'FAIL'), c('ISC-3', 'PARTIAL')]);
    tx.criteria.saveVersion(runC.id, 1, [c('ISC-1', 'PASS', 'Docs page has an example')]);
    tx.events.save(
      model(runA.id, 1, 1000, 200, 0.01, { cachedInputTokens: 400 }),
      model(runA.id, 2, 500, 100, 0.002),
      { runId: runA.id, seq: 3, at: '2026-11-01T10:02:00.000Z', kind: 'tool', message: 'edit', inputTokens: 0, outputTokens: 0, costUsd: 0 },
      model(runB.id, 1, 2000, 300, 0.05),
    );
    const rating = (id: string, runId: string | undefined, timestamp: string, value: number) => tx.ratings.save({ id, ...(runId ? { runId } : {}), timestamp, rating: value, sessionId: 's1', type: 'explicit' });
    rating('rating-1', runA.id, '2026-11-01T10:05:00.000Z', 3);
    rating('rating-2', runA.id, '2026-11-01T10:06:00.000Z', 8);
    rating('rating-3', runC.id, '2026-11-02T09:11:00.000Z', 6);
    rating('rating-4', undefined, '2026-11-02T10:00:00.000Z', 4);
    const gate = (id: string, at: string, host: string, verdict: GateOutcomeRecord['verdict'], tampered: string[] = []) =>
      tx.gateOutcomes.save({ id, at, host, event: 'Stop', session: 'session 1a2b3c4d', verdict, before: 0, prds: [{ path: LOGIN_PRD, tampered }] });
    gate('gate-1', '2026-11-01T10:03:00.000Z', 'claude-code', 'passed');
    gate('gate-2', '2026-11-01T12:10:00.000Z', 'claude-code', 'blocked', ['ISC-2']);
    gate('gate-3', '2026-11-02T11:30:00.000Z', 'codex', 'released');
    tx.loops.save(aLoop());
  });
  return { runA: runA.id, runB: runB.id, runC: runC.id, runD: runD.id };
}

function aLoop(): Loop {
  const entry = (iteration: number, passing: number) => ({ iteration, at: `2026-11-0${iteration}T08:00:00.000Z`, effort: 'STANDARD' as const, passing, total: 10, failing: [], message: `iteration ${iteration}: ${passing}/10 artifacts passing` });
  return {
    id: 'loop-docs1',
    spec: { glob: 'docs/**/*.md', isc: 'docs.page', agents: 2, effort: 'STANDARD', maxIterations: 3, verifyOnly: false },
    state: 'FAILED',
    iteration: 3,
    effort: 'STANDARD',
    criterionIds: ['ISC-1'],
    total: 10,
    passing: 6,
    budgetSeconds: 600,
    elapsedMs: 1000,
    log: [entry(1, 3), entry(2, 7), entry(3, 6)],
    unmet: [],
    createdAt: '2026-11-01T08:00:00.000Z',
    updatedAt: '2026-11-03T08:00:00.000Z',
  };
}
