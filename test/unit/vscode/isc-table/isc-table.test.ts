import * as assert from 'node:assert/strict';
import type { AnyCriterion, VerificationReport } from '../../../../src/model';
import { applyDeltas, tableDeltas, tableSnapshot, type SnapshotInput } from '../../../../src/vscode/isc-table/snapshot';
import type { TableRow } from '../../../../webviews/isc-table/protocol';
import { ALL_ROWS, evidenceParts, formatCount, matchesFilter, naturalCompare, rowView, visibleRows } from '../../../../webviews/isc-table/view-model';
import { aCriterion, aRun } from '../../support/builders';

const ABILITIES = { verify: true, edit: true, cancel: false, resume: false, rate: false };

function report(createdAt: string, results: VerificationReport['results']): VerificationReport {
  return { id: `report-${createdAt}`, runId: 'run-abc123', iteration: 0, criteriaVersion: 1, results, passed: false, summary: '', createdAt };
}

function input(overrides: Partial<SnapshotInput> = {}): SnapshotInput {
  const run = aRun({ id: 'run-abc123', elapsedMs: 90_500, budgetSeconds: 300 });
  const criteria: AnyCriterion[] = [
    aCriterion({ id: 'ISC-10', text: 'Tenth', priority: 'NICE', domain: 'ui' }),
    aCriterion({ id: 'ISC-2', text: 'Second', outcome: 'PASS', verifiedAt: '2026-11-01T10:05:00.000Z', claim: { by: 'specialist-1', at: '2026-11-01T10:01:00.000Z' }, domain: 'api' }),
    aCriterion({ kind: 'anti-criterion', id: 'ISC-A-1', text: 'No secret in the logs', verify: { type: 'GREP', pattern: 'sk-', expect: 'absent' } } as Partial<AnyCriterion>),
  ];
  return {
    run,
    criteria,
    reports: [
      report('2026-11-01T10:02:00.000Z', [{ criterionId: 'ISC-2', outcome: 'FAIL', evidence: 'old', durationMs: 5, failureLabel: 'REQUIREMENT_COVERAGE', locations: [] }]),
      report('2026-11-01T10:05:00.000Z', [{ criterionId: 'ISC-2', outcome: 'PASS', evidence: 'src/app.ts:12: dark-mode', durationMs: 42, locations: [{ file: 'src/app.ts', line: 12 }] }]),
    ],
    events: [
      { inputTokens: 1000, outputTokens: 200, costUsd: 0.01 },
      { inputTokens: 500, outputTokens: 100, costUsd: 0.02 },
    ],
    caps: { tokens: 200_000, usd: 0.5 },
    abilities: ABILITIES,
    ...overrides,
  };
}

describe('ISC table row model', () => {
  it('makes one row per criterion, criteria before anti-criteria in id order, with the newest verdict and its evidence', () => {
    const s = tableSnapshot(input());
    assert.deepEqual(s.rows.map((r) => r.id), ['ISC-2', 'ISC-10', 'ISC-A-1']);
    const row = s.rows[0]!;
    assert.equal(row.outcome, 'PASS');
    assert.equal(row.evidence, 'src/app.ts:12: dark-mode');
    assert.deepEqual(row.locations, [{ file: 'src/app.ts', line: 12 }]);
    assert.equal(row.durationMs, 42);
    assert.equal(row.claimedBy, 'specialist-1');
    assert.equal(row.stale, false);
    assert.equal(s.rows[1]!.outcome, undefined, 'never verified: no outcome');
    assert.equal(s.rows[2]!.kind, 'anti-criterion');
    assert.equal(s.rows[2]!.verify, 'Grep (absent): sk-');
  });

  it('marks an outcome stale when the criterion was restated after it was verified', () => {
    const base = input();
    const restated = base.criteria.map((c) => (c.id === 'ISC-2' ? ({ ...c, outcome: undefined, verifiedAt: undefined, text: 'Second, restated', updatedAt: '2026-11-01T11:00:00.000Z' } as AnyCriterion) : c));
    const row = tableSnapshot({ ...base, run: { ...base.run, criteriaVersion: 2 }, criteria: restated }).rows.find((r) => r.id === 'ISC-2')!;
    assert.equal(row.outcome, 'PASS', 'the last verdict is still shown');
    assert.equal(row.stale, true);
    const doneLater = base.criteria.map((c) => (c.id === 'ISC-2' ? ({ ...c, status: 'DONE', verifiedAt: undefined, updatedAt: '2026-11-01T11:00:00.000Z' } as AnyCriterion) : c));
    assert.equal(tableSnapshot({ ...base, criteria: doneLater }).rows.find((r) => r.id === 'ISC-2')!.stale, false, 'a row that only moved on after its verdict keeps it fresh');
    const byFiles = tableSnapshot({ ...base, staleIds: new Set(['ISC-2']) }).rows.find((r) => r.id === 'ISC-2')!;
    assert.equal(byFiles.stale, true, 'a file change the PASS depended on');
  });

  it('sums tokens and money from the run events against the run caps, and time against the budget', () => {
    const { header } = tableSnapshot(input());
    assert.deepEqual(header.budget, { seconds: { used: 91, limit: 300 }, tokens: { used: 1800, limit: 200_000 }, usd: { used: 0.03, limit: 0.5 } });
    assert.equal(header.finished, false);
    assert.equal(tableSnapshot(input({ run: aRun({ id: 'run-abc123', state: 'COMPLETE' }) })).header.finished, true);
    assert.equal(tableSnapshot(input({ caps: {} })).header.budget.tokens.limit, undefined, 'no cap, no limit');
  });
});

describe('ISC table deltas', () => {
  it('sends nothing when nothing changed', () => {
    assert.deepEqual(tableDeltas(tableSnapshot(input()), tableSnapshot(input())), []);
  });

  it('sends exactly one row when one criterion changes', () => {
    const before = tableSnapshot(input());
    const base = input();
    const after = tableSnapshot({ ...base, criteria: base.criteria.map((c) => (c.id === 'ISC-10' ? ({ ...c, status: 'ACTIVE' } as AnyCriterion) : c)) });
    const deltas = tableDeltas(before, after);
    assert.equal(deltas.length, 1);
    assert.equal(deltas[0]!.type, 'row');
    assert.equal(deltas[0]!.type === 'row' && deltas[0].row.id, 'ISC-10');
  });

  it('sends the header alone when only the phase or budget moves', () => {
    const before = tableSnapshot(input());
    const after = tableSnapshot(input({ run: { ...input().run, phase: 'BUILD', elapsedMs: 120_000 } }));
    assert.deepEqual(tableDeltas(before, after).map((d) => d.type), ['header']);
  });

  it('brings a snapshot to the next one through its deltas (rows added, removed, changed; approvals)', () => {
    const before = tableSnapshot(input());
    const base = input();
    const criteria = [...base.criteria.filter((c) => c.id !== 'ISC-10'), aCriterion({ id: 'ISC-3', text: 'Third' })];
    const after = tableSnapshot({ ...base, criteria, approvals: [{ id: 'a1', kind: 'command', title: 'Run a command', detail: 'npm test', command: 'npm test', cwd: '/work', createdAt: '2026-01-01T00:00:00.000Z' }] });
    const deltas = tableDeltas(before, after);
    assert.deepEqual(applyDeltas(before, deltas), after);
    assert.ok(deltas.some((d) => d.type === 'rowRemoved' && d.id === 'ISC-10'));
    assert.ok(deltas.some((d) => d.type === 'approvals'));
  });
});

describe('ISC table filters and sorts', () => {
  const row = (id: string, fields: Partial<TableRow>): TableRow => ({ id, kind: 'criterion', text: `text of ${id}`, priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', stale: false, locations: [], ...fields });
  const rows = [
    row('ISC-1', { outcome: 'PASS', domain: 'ui', durationMs: 30 }),
    row('ISC-2', { outcome: 'FAIL', priority: 'NICE', domain: 'api', durationMs: 10 }),
    row('ISC-3', { text: 'Login form rejects an empty password', priority: 'IMPORTANT', durationMs: 20 }),
    row('ISC-10', { outcome: 'FAIL', domain: 'ui' }),
    { ...row('ISC-A-1', { outcome: 'UNKNOWN' }), kind: 'anti-criterion' as const },
  ];

  it('filters by outcome (and "not verified"), priority, domain and text', () => {
    const ids = (f: Partial<typeof ALL_ROWS>) => rows.filter((r) => matchesFilter(r, { ...ALL_ROWS, ...f })).map((r) => r.id);
    assert.deepEqual(ids({ outcome: 'FAIL' }), ['ISC-2', 'ISC-10']);
    assert.deepEqual(ids({ outcome: 'NONE' }), ['ISC-3']);
    assert.deepEqual(ids({ priority: 'NICE' }), ['ISC-2']);
    assert.deepEqual(ids({ domain: 'ui' }), ['ISC-1', 'ISC-10']);
    assert.deepEqual(ids({ text: 'PASSWORD' }), ['ISC-3']);
    assert.deepEqual(ids({ outcome: 'FAIL', domain: 'ui' }), ['ISC-10']);
    assert.equal(ids({}).length, rows.length);
  });

  it('sorts by id numerically with anti-criteria last, by outcome problems first, and reverses on descending', () => {
    assert.deepEqual(visibleRows(rows, ALL_ROWS, { key: 'id', descending: false }).map((r) => r.id), ['ISC-1', 'ISC-2', 'ISC-3', 'ISC-10', 'ISC-A-1']);
    assert.deepEqual(visibleRows(rows, ALL_ROWS, { key: 'outcome', descending: false }).map((r) => r.id), ['ISC-2', 'ISC-10', 'ISC-A-1', 'ISC-3', 'ISC-1']);
    assert.deepEqual(visibleRows(rows, ALL_ROWS, { key: 'duration', descending: true }).map((r) => r.id), ['ISC-1', 'ISC-3', 'ISC-2', 'ISC-A-1', 'ISC-10']);
    assert.deepEqual(visibleRows(rows, ALL_ROWS, { key: 'priority', descending: false }).map((r) => r.id), ['ISC-1', 'ISC-10', 'ISC-A-1', 'ISC-3', 'ISC-2']);
  });
});

describe('evidence links', () => {
  it('marks workspace-relative file:line mentions as links and leaves the rest as text', () => {
    const parts = evidenceParts('src/greet.js:4: <script>alert(1)</script> and README.md:12:3 done');
    assert.deepEqual(parts, [
      { text: 'src/greet.js:4', location: { file: 'src/greet.js', line: 4 } },
      { text: ': <script>alert(1)</script> and ' },
      { text: 'README.md:12:3', location: { file: 'README.md', line: 12 } },
      { text: ' done' },
    ]);
  });

  it('never links a path that climbs out or is absolute, nor a time of day', () => {
    for (const text of ['../secret.txt:3', '/etc/passwd:1', 'a/../../b.js:2', 'at 10:30 the check ran', 'line 0 of x.js:0']) {
      assert.ok(
        evidenceParts(text).every((p) => !('location' in p)),
        `${text} → ${JSON.stringify(evidenceParts(text))}`,
      );
    }
  });
});

describe('ISC table row view (what each cell shows)', () => {
  const row = (fields: Partial<TableRow>): TableRow => ({ id: 'ISC-7', kind: 'criterion', text: 'Seven', priority: 'IMPORTANT', source: 'EXPLICIT', status: 'ACTIVE', stale: false, locations: [], verify: 'Grep: seven', ...fields });

  it('gives the row its kind, outcome, stale and expanded classes, and the cells their words', () => {
    const v = rowView(row({ outcome: 'FAIL', durationMs: 1500, claimedBy: 'specialist-2' }), false);
    assert.equal(v.rowClass, 'row outcome-fail');
    assert.equal(v.anti, false);
    assert.equal(v.priorityClass, 'prio important');
    assert.equal(v.statusClass, 'status active');
    assert.equal(v.verify, 'Grep: seven');
    assert.equal(v.verifyMissing, false);
    assert.deepEqual(v.outcome, { word: 'FAIL', badgeClass: 'badge outcome fail', stale: false });
    assert.equal(v.duration, '1.5 s');
    assert.equal(v.claimedBy, 'specialist-2');
    const anti = rowView(row({ kind: 'anti-criterion', outcome: 'PASS', stale: true }), true);
    assert.equal(anti.rowClass, 'row anti outcome-pass stale expanded');
    assert.equal(anti.anti, true);
    assert.deepEqual(anti.outcome, { word: 'PASS', badgeClass: 'badge outcome pass', stale: true });
  });

  it('shows no badge before the first verdict, "none" without a verify method, and blanks for no time or claim', () => {
    const v = rowView(row({ verify: undefined }), false);
    assert.equal(v.rowClass, 'row outcome-none');
    assert.equal(v.outcome, undefined);
    assert.equal(v.verify, 'none');
    assert.equal(v.verifyMissing, true);
    assert.equal(v.duration, '');
    assert.equal(v.claimedBy, '');
    assert.equal(rowView(row({ outcome: 'UNKNOWN' }), false).outcome?.badgeClass, 'badge outcome unknown');
    assert.equal(rowView(row({ outcome: 'PARTIAL' }), false).outcome?.badgeClass, 'badge outcome warn');
  });
});

describe('ISC table ordering and numbers without Intl', () => {
  const sign = (n: number) => Math.sign(n);

  it('orders ids and domains as a numeric collator does: numbers by value, letters without case', () => {
    const collator = new Intl.Collator('en', { numeric: true });
    const words = ['ISC-1', 'ISC-2', 'ISC-10', 'ISC-9', 'ISC-100', 'ISC-A-1', 'ISC-A-10', 'ISC-A-2', 'ISC-12b', 'ISC-12a', 'api', 'API-2', 'storage', 'ui', 'ux', 'v2', 'v10', 'a', 'ab', ''];
    for (const a of words) for (const b of words) assert.equal(sign(naturalCompare(a, b)), sign(collator.compare(a, b)), `${a} vs ${b}`);
    assert.deepEqual(['ISC-10', 'ISC-2', 'ISC-1', 'ISC-100'].sort(naturalCompare), ['ISC-1', 'ISC-2', 'ISC-10', 'ISC-100']);
  });

  it('treats leading zeros as the same number, then still gives a stable order', () => {
    assert.ok(naturalCompare('ISC-007', 'ISC-8') < 0);
    assert.ok(naturalCompare('ISC-010', 'ISC-9') > 0);
    assert.notEqual(naturalCompare('ISC-01', 'ISC-1'), 0, 'different ids never compare equal');
    assert.equal(naturalCompare('ISC-1', 'ISC-1'), 0);
    assert.equal(sign(naturalCompare('ISC-99999999999999999999', 'ISC-100000000000000000000')), -1, 'numbers longer than a double stay exact');
  });

  it('groups thousands as toLocaleString("en") does', () => {
    for (const n of [0, 7, 999, 1000, 12_345, 500_000, 4_000_000, 1_234_567_890, -1500]) assert.equal(formatCount(n), n.toLocaleString('en'), String(n));
  });
});
