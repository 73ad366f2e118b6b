import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { aggregateDashboard, NO_PRD } from '../../../../src/app/dashboard';
import { leaveGateOutcome } from '../../../../src/app/gate/outcome-record';
import { runUsage } from '../../../../src/model/run-usage';
import { Store } from '../../../../src/store/store';
import { LOGIN_PRD, seedDashboardStore } from '../../support/dashboard-seed';

const NOW = new Date('2026-11-03T12:00:00.000Z');

describe('dashboard aggregation', () => {
  let store: Store;
  beforeEach(async () => {
    store = await Store.open({ file: path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-dashboard-')), 'ideal-state.sqlite'), checkpointIdleMs: 60_000 });
  });
  afterEach(() => store.close());

  it('an empty store is a clear empty state, with no figures made up', () => {
    const data = aggregateDashboard(store, { now: NOW });
    assert.equal(data.empty, true);
    assert.equal(data.totals.runs, 0);
    assert.equal(data.totals.medianCompleteMs, undefined);
    assert.equal(data.totals.averageRating, undefined);
    assert.deepEqual([data.days, data.prds, data.recentRuns, data.hosts, data.tampered, data.failing, data.loops], [[], [], [], [], [], [], []]);
    assert.equal(data.generatedAt, NOW.toISOString());
  });

  it('sums a store of known runs to the exact figures', () => {
    const ids = seedDashboardStore(store);
    const data = aggregateDashboard(store, { now: NOW });
    assert.equal(data.empty, false);
    const { totals } = data;
    assert.deepEqual(
      { runs: totals.runs, finished: totals.finished, complete: totals.complete, states: totals.states, passed: totals.criteriaPassed, criteria: totals.criteriaTotal },
      // Run A counts its second criteria version only (3 of 3), B 1 of 3, C 1 of 1, D none.
      { runs: 4, finished: 3, complete: 2, states: { COMPLETE: 2, FAILED: 1, RUNNING: 1 }, passed: 5, criteria: 7 },
    );
    assert.equal(totals.medianCompleteMs, (4 * 60_000 + 10 * 60_000) / 2);
    assert.deepEqual([totals.inputTokens, totals.outputTokens, totals.usd], [3500, 600, 0.062]);
    // 3, 8, 6 and the imported 4.
    assert.deepEqual([totals.ratings, totals.averageRating], [4, 5.3]);
    assert.deepEqual([totals.gateStops, totals.tampered], [3, 1]);

    assert.deepEqual(
      data.days.map((d) => [d.day, d.runs, d.complete, d.criteriaPassed, d.criteriaTotal, d.medianCompleteMs, d.ratings, d.averageRating, d.gateBlocked, d.gateReleased]),
      [
        ['2026-11-01', 2, 1, 4, 6, 240_000, 2, 5.5, 1, 0],
        ['2026-11-02', 2, 1, 1, 1, 600_000, 2, 5, 0, 1],
      ],
    );

    const login = data.prds.find((p) => p.prd === LOGIN_PRD)!;
    assert.deepEqual(
      [login.runs, login.complete, login.lastState, login.criteriaPassed, login.criteriaTotal, login.medianCompleteMs, login.ratings, login.averageRating, login.gatePassed, login.gateBlocked, login.gateReleased, login.tampered],
      [3, 1, 'RUNNING', 4, 6, 240_000, 1, 8, 1, 1, 1, 1],
    );
    assert.deepEqual(data.prds.map((p) => [p.prd, p.runs]), [[LOGIN_PRD, 3], [NO_PRD, 1]]);

    assert.deepEqual(data.hosts, [
      { host: 'claude-code', stops: 2, passed: 1, blocked: 1, released: 0 },
      { host: 'codex', stops: 1, passed: 0, blocked: 0, released: 1 },
    ]);
    assert.deepEqual(data.tampered, [{ at: '2026-11-01T12:10:00.000Z', host: 'claude-code', prd: LOGIN_PRD, what: ['ISC-2'] }]);
    // Latest versions only: run A's first FAILs are gone; B's ISC-2 FAIL and ISC-3 PARTIAL remain.
    assert.deepEqual(
      data.failing.map((f) => [f.id, f.text, f.failed, f.verified, f.prd]),
      [
        ['ISC-2', 'Login page criterion 2 holds', 1, 2, LOGIN_PRD],
        ['ISC-3', 'Login page criterion 3 holds', 1, 2, LOGIN_PRD],
      ],
    );
    assert.deepEqual(data.loops.map((l) => [l.id, l.title, l.state, l.passing, l.total, l.snapshots.map((s) => [s.iteration, s.passing, s.delta])]), [
      ['loop-docs1', 'docs.page · docs/**/*.md', 'FAILED', 6, 10, [[1, 3, 3], [2, 7, 4], [3, 6, -1]]],
    ]);

    assert.deepEqual(data.recentRuns.map((r) => r.id), [ids.runD, ids.runC, ids.runB, ids.runA]);
    const a = data.recentRuns.find((r) => r.id === ids.runA)!;
    assert.deepEqual([a.criteriaPassed, a.criteriaTotal, a.completeMs, a.rating], [3, 3, 240_000, 8]);
    // The same spending the run's own header shows (src/model/run-usage.ts).
    const usage = runUsage(store.events.where('run_id = ?', [ids.runA]));
    assert.deepEqual([a.inputTokens, a.outputTokens, a.usd], [usage.fresh + usage.cached + usage.written, usage.output, usage.usd]);
    assert.equal(data.recentRuns.find((r) => r.id === ids.runD)!.completeMs, undefined);
  });

  it('folds a verdict the gate left for the store into the figures', async () => {
    const file = store.location;
    store.close();
    const warnings: string[] = [];
    leaveGateOutcome(
      { workspace: '/tmp/ws', store: file, host: 'gemini', event: 'AfterAgent', session: 'session 00ff00ff', verdict: 'blocked', before: 1, checks: [{ file: '/tmp/ws/docs/PRD-x.md', shown: 'docs/PRD-x.md', changes: [{ id: 'ISC-4', what: 'criterion', summary: 'ISC-4 changed', diff: [] }] }], now: NOW },
      (w) => warnings.push(w),
    );
    assert.deepEqual(warnings, []);
    store = await Store.open({ file, checkpointIdleMs: 60_000 });
    const data = aggregateDashboard(store, { now: NOW });
    assert.deepEqual(data.hosts, [{ host: 'gemini', stops: 1, passed: 0, blocked: 1, released: 0 }]);
    assert.deepEqual(data.tampered, [{ at: NOW.toISOString(), host: 'gemini', prd: 'docs/PRD-x.md', what: ['ISC-4'] }]);
    assert.equal(data.empty, false);
  });
});
