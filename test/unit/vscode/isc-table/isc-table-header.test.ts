import * as assert from 'node:assert/strict';
import { tableSnapshot } from '../../../../src/vscode/isc-table/snapshot';
import { timeShown } from '../../../../webviews/isc-table/header';
import { headerStatus } from '../../../../webviews/isc-table/header-state';
import type { TableHeader, TableRow } from '../../../../webviews/isc-table/protocol';
import { aCriterion, aRun } from '../../support/builders';

const COMPLETE = { state: 'COMPLETE', exitReason: 'every CRITICAL criterion verified PASS' };

function row(id: string, outcome: TableRow['outcome'], more: Partial<TableRow> = {}): TableRow {
  return { id, kind: 'criterion', text: id, priority: 'CRITICAL', source: 'EXPLICIT', status: 'DONE', stale: false, locations: [], ...(outcome ? { outcome } : {}), ...more };
}

describe('ISC table header: state and counts from the rows shown', () => {
  it('keeps COMPLETE and its reason when every CRITICAL row passes and none is stale', () => {
    const s = headerStatus(COMPLETE, [row('ISC-1', 'PASS'), row('ISC-2', 'PASS'), row('ISC-3', 'FAIL', { priority: 'NICE' })]);
    assert.equal(s.word, 'COMPLETE');
    assert.equal(s.tone, 'pass');
    assert.equal(s.reason, 'every CRITICAL criterion verified PASS');
    assert.equal(s.score, '2 / 3 pass');
  });

  it('says FAILING, never "every CRITICAL criterion verified PASS", once a CRITICAL row is re-verified to FAIL', () => {
    const s = headerStatus(COMPLETE, [row('ISC-1', 'PASS'), row('ISC-2', 'PASS'), row('ISC-3', 'FAIL'), row('ISC-4', 'PASS'), row('ISC-5', 'PASS')]);
    assert.equal(s.word, 'FAILING');
    assert.equal(s.tone, 'fail');
    assert.equal(s.runState, 'COMPLETE', 'the stored state is kept apart from the word shown');
    assert.equal(s.reason, 'ended COMPLETE; CRITICAL ISC-3 does not pass now');
    assert.doesNotMatch(s.reason!, /every CRITICAL criterion verified PASS/);
    assert.equal(s.score, '4 / 5 pass');
  });

  it('says STALE and counts a stale PASS apart, not as passing', () => {
    const s = headerStatus(COMPLETE, [row('ISC-1', 'PASS'), row('ISC-2', 'PASS', { stale: true })]);
    assert.equal(s.word, 'STALE');
    assert.equal(s.tone, 'warn');
    assert.equal(s.pass, 1);
    assert.equal(s.stale, 1);
    assert.equal(s.score, '1 / 2 pass · 1 stale');
    assert.equal(s.reason, 'ended COMPLETE; CRITICAL ISC-2 changed since its verdict: verify it again');
  });

  it('says NOT VERIFIED over a CRITICAL row with no verdict (a criterion added or reset since)', () => {
    const s = headerStatus(COMPLETE, [row('ISC-1', 'PASS'), row('ISC-2', undefined, { status: 'PENDING' })]);
    assert.equal(s.word, 'NOT VERIFIED');
    assert.match(s.reason!, /ISC-2 has no verdict since/);
    assert.equal(s.score, '1 / 2 pass');
    assert.equal(headerStatus(COMPLETE, []).word, 'NOT VERIFIED');
  });

  it('a stale FAIL is stale, not "does not pass now": re-verify (issue 28 §9)', () => {
    const s = headerStatus(COMPLETE, [row('ISC-1', 'FAIL', { stale: true }), row('ISC-2', 'FAIL', { stale: true }), row('ISC-3', 'PASS')]);
    assert.equal(s.word, 'STALE');
    assert.equal(s.reason, 'ended COMPLETE; CRITICAL ISC-1, ISC-2 changed since their verdicts: verify them again');
    assert.equal(s.score, '1 / 3 pass · 2 stale');
  });

  it('puts failing first when rows fail and go stale at once, and names at most three ids', () => {
    const rows = ['ISC-1', 'ISC-2', 'ISC-3', 'ISC-4', 'ISC-5'].map((id) => row(id, 'FAIL'));
    const s = headerStatus(COMPLETE, [...rows, row('ISC-6', 'PASS', { stale: true })]);
    assert.equal(s.word, 'FAILING');
    assert.equal(s.reason, 'ended COMPLETE; CRITICAL ISC-1, ISC-2, ISC-3 and 2 more do not pass now');
  });

  it('leaves the other states as the run says, with the stale PASS still kept out of the count', () => {
    const s = headerStatus({ state: 'BUDGET_EXHAUSTED', exitReason: 'reached the level\'s 3 iterations' }, [row('ISC-1', 'PASS', { stale: true }), row('ISC-2', 'FAIL')]);
    assert.equal(s.word, 'OUT OF BUDGET');
    assert.equal(s.reason, "reached the level's 3 iterations");
    assert.equal(s.score, '0 / 2 pass · 1 stale');
    assert.equal(headerStatus({ state: 'RUNNING' }, [row('ISC-1', undefined)]).word, 'RUNNING');
  });
});

describe('ISC table time bar: waiting for a person', () => {
  const header = (time: TableHeader['time'], used = 30): Pick<TableHeader, 'budget' | 'time'> => ({ budget: { seconds: { used, limit: 120 }, tokens: { used: 0 }, usd: { used: 0 } }, time });

  it('counts a going run on between messages', () => {
    assert.equal(timeShown(header({ going: true, waitedMs: 0 }), 5_400).figure.used, 35);
    assert.equal(timeShown(header({ going: false, waitedMs: 0 }), 5_400).figure.used, 30, 'a run not going stands still');
  });

  it('stands still while waiting for approval, and counts the wait instead', () => {
    const waiting = header({ going: true, waitingMs: 70_000, waitedMs: 70_000 });
    const later = timeShown(waiting, 80_000);
    assert.equal(later.figure.used, 30, 'the wait does not count against the budget');
    assert.equal(later.waitingS, 150);
    assert.equal(later.note, 'waiting for approval 2 min 30 s (not counted)');
  });

  it('says how long a finished run waited, apart from its budget', () => {
    const done = timeShown(header({ going: false, waitedMs: 150_000 }, 40), 0);
    assert.equal(done.figure.used, 40);
    assert.equal(done.note, '+ 2 min 30 s waiting for approval, not counted');
  });

  it('comes from the live time of a going run, else from what the run stored', () => {
    const base = { criteria: [aCriterion({ id: 'ISC-1' })], reports: [], events: [], abilities: { verify: true, edit: true, cancel: true, resume: false, rate: false } };
    const run = aRun({ elapsedMs: 10_000, budgetSeconds: 120, waitedMs: 4_000 });
    const stored = tableSnapshot({ ...base, run }).header;
    assert.deepEqual([stored.budget.seconds.used, stored.time], [10, { going: false, waitedMs: 4_000 }]);
    const live = tableSnapshot({ ...base, run, live: { elapsedMs: 21_000, waitingMs: 3_000, waitedMs: 7_000 } }).header;
    assert.deepEqual([live.budget.seconds.used, live.time], [21, { going: true, waitedMs: 7_000, waitingMs: 3_000 }]);
  });
});
