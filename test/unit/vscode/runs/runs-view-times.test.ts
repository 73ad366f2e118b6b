import * as assert from 'node:assert/strict';
import { loopBudgetText } from '../../../../src/vscode/loop/loop-view';
import { durationWords, formatDuration, loopWords, runTimes } from '../../../../src/vscode/runs/runs-tree-model';

describe('Runs view: a run\'s time and a loop\'s line say what the run and the loop say', () => {
  it('gives a 16-second run that waited for approvals as 16 s, its waits apart (not "2 min")', () => {
    // Started 12:00:00, ended 12:01:56: 16 s working, 1 min 40 s waiting for the person's Approve.
    const run = { elapsedMs: 16_200, waitedMs: 100_000, startedAt: '2026-11-28T12:00:00.000Z', finishedAt: '2026-11-28T12:01:56.200Z' };
    const times = runTimes(run);
    assert.deepEqual(times, { workedMs: 16_200, waitedMs: 100_000 });
    const summary = { durationMs: times.workedMs, waitedMs: times.waitedMs };
    assert.equal(durationWords(summary), '16 s');
    assert.equal(durationWords(summary, true), '16 s working + 1 min 40 s waiting for you (not counted against the budget)');
    // A run that recorded no working time: its wall time less its waits.
    assert.deepEqual(runTimes({ ...run, elapsedMs: 0 }), { workedMs: 16_200, waitedMs: 100_000 });
    assert.equal(durationWords({ durationMs: 61_000 }, true), '1 min 1 s', 'nothing about waiting when it did not wait');
  });

  it('formats whole seconds, minutes with their seconds, and hours', () => {
    assert.equal(formatDuration(16_000), '16 s');
    assert.equal(formatDuration(59_400), '59 s');
    assert.equal(formatDuration(119_000), '1 min 59 s', 'never rounded down to "1 min"');
    assert.equal(formatDuration(120_000), '2 min');
    assert.equal(formatDuration(3_900_000), '1 h 5 min');
    assert.equal(formatDuration(-5), '0 s');
  });

  it('says a loop\'s state in words with the sub-runs it holds', () => {
    assert.deepEqual(loopWords({ state: 'CANCELLED', passing: 0, total: 1 }, 1), { description: 'cancelled · 1 sub-run', tooltip: '0 of 1 artifact passes · cancelled' });
    assert.equal(loopWords({ state: 'BUDGET_EXHAUSTED', passing: 2, total: 3 }, 0).description, 'out of budget · 0 sub-runs');
  });

  it('says a loop\'s budget as a run\'s: the time waited for a person apart, not counted', () => {
    assert.equal(loopBudgetText({ budgetPercent: 4, waitedMs: 44_000 }), '4% of its budget used + 44 s waiting for you, not counted');
    assert.equal(loopBudgetText({ budgetPercent: 4 }), '4% of its budget used');
  });
});
