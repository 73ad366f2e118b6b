import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { preparePrd } from '../../../src/app/verify-prd';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { pendingFolder, writePending } from '../../../src/store/pending';
import { Store } from '../../../src/store/store';
import { recordVerification, recordVerificationLater, type RecordVerificationInput } from '../../../src/verify/store-verification';
import type { VerifySetResult } from '../../../src/verify/types';

// The stop hook's gate leaves its verification report for the store's next writer (issue 26):
// one small file, flushed and renamed into place, that the next writable open folds in.

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261126-pending',
  'status: IN_PROGRESS',
  'effort_level: FAST',
  '---',
  '# Pending writes',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: Settings page shows a dark mode toggle switch to users | Verify: Grep: dark-mode',
  '- [ ] ISC-2: Dark theme colours pass the contrast checker at level AA | Verify: CLI: npm run contrast',
  '',
].join('\n');
const FILE = '.ideal-state/prds/pending.md';
const table = shippedEffortTable();
const set: VerifySetResult = {
  results: [
    { criterionId: 'ISC-1', outcome: 'PASS', evidence: '1 matching line\nsrc/a.ts:3: dark-mode', durationMs: 4, locations: [] },
    { criterionId: 'ISC-2', outcome: 'FAIL', failureLabel: 'REQUIREMENT_COVERAGE', evidence: 'exit 1', durationMs: 9, locations: [] },
  ],
  passed: false,
  summary: '1 of 2 criteria pass',
  counts: { PASS: 1, FAIL: 1, PARTIAL: 0, UNKNOWN: 0 },
  coverage: {},
};

function input(now = new Date('2026-11-26T12:00:00.000Z')): RecordVerificationInput {
  const prd = preparePrd(PRD, { name: FILE, effortTable: table });
  assert.ok(prd.ok);
  return { prdPath: FILE, document: prd.document, text: PRD, criteria: prd.criteria, set, effortTable: table, effort: prd.level, workspaceFolder: '/ws', now };
}

const tmpStore = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-pending-')), 'ideal-state.sqlite');

/** What a store holds of the PRD's verification, without the ids a new run gets. */
function held(store: Store) {
  const entry = store.prdIndex.where('path = ?', [FILE])[0]!;
  const run = store.runs.get(entry.runId!)!;
  const reports = store.reports.where('run_id = ?', [entry.runId!]);
  return {
    run: { effort: run.effort, state: run.state, phase: run.phase, budgetSeconds: run.budgetSeconds, prdPath: run.prdPath, request: run.request, workspaceFolder: run.workspaceFolder },
    criteria: store.criteria.list(entry.runId!).map((c) => [c.id, c.text, c.outcome, c.verifiedAt]),
    reports: reports.map((r) => ({ passed: r.passed, summary: r.summary, results: r.results, createdAt: r.createdAt })),
    index: { prdId: entry.prdId, title: entry.title, status: entry.status, contentHash: entry.contentHash },
  };
}

describe('pending store writes (issue 26)', () => {
  it('a verification left for later is, once the store is opened, what recording it at once gives', async () => {
    const direct = await Store.open({ file: tmpStore() });
    const now = recordVerification(direct, input());
    assert.ok(now.stored);
    const expected = held(direct);
    direct.close();

    const file = tmpStore();
    const left = recordVerificationLater(file, input());
    assert.ok(fs.existsSync(left.file), 'the record is in place when the call returns');
    assert.equal(fs.existsSync(file), false, 'the store itself was not opened');
    const later = await Store.open({ file });
    try {
      assert.deepEqual(held(later), expected);
      assert.equal(later.reports.where('id = ?', [left.reportId])[0]?.id, left.reportId, 'the report has the id chosen when it was left');
      assert.deepEqual(fs.readdirSync(pendingFolder(file)), [], 'a folded record is deleted');
      assert.deepEqual(later.warnings, []);
    } finally {
      later.close();
    }
  });

  it('a record folded in twice (killed between the commit and the deletion) stays one report', async () => {
    const file = tmpStore();
    const left = recordVerificationLater(file, input());
    const copy = fs.readFileSync(left.file);
    (await Store.open({ file })).close();
    fs.writeFileSync(left.file, copy);
    const store = await Store.open({ file });
    try {
      const runId = store.prdIndex.where('path = ?', [FILE])[0]!.runId!;
      assert.deepEqual(store.reports.where('run_id = ?', [runId]).map((r) => r.id), [left.reportId]);
    } finally {
      store.close();
    }
  });

  it('records fold oldest first: the later verification is the criteria’s outcome', async () => {
    const file = tmpStore();
    const failing = input(new Date('2026-11-26T12:00:00.000Z'));
    const passing = { ...input(new Date('2026-11-26T12:05:00.000Z')), set: { ...set, passed: true, results: set.results.map(({ failureLabel: _, ...r }) => ({ ...r, outcome: 'PASS' as const })) } };
    recordVerificationLater(file, passing);
    recordVerificationLater(file, failing);
    const store = await Store.open({ file });
    try {
      const runId = store.prdIndex.where('path = ?', [FILE])[0]!.runId!;
      assert.deepEqual(store.criteria.list(runId).map((c) => c.outcome), ['PASS', 'PASS']);
      assert.equal(store.reports.where('run_id = ?', [runId]).length, 2);
    } finally {
      store.close();
    }
  });

  it('a half-written record (a .tmp: the process was killed before the rename) is never read', async () => {
    const file = tmpStore();
    fs.mkdirSync(pendingFolder(file), { recursive: true });
    const torn = path.join(pendingFolder(file), '001795734806111-1-0-verification.json.tmp');
    fs.writeFileSync(torn, '{"kind":"verification","record":{"prdPa');
    const store = await Store.open({ file });
    try {
      assert.deepEqual(store.prdIndex.where('path = ?', [FILE]), []);
      assert.deepEqual(store.warnings, []);
    } finally {
      store.close();
    }
  });

  it('a record that cannot be read is moved aside and named in a warning, not dropped', async () => {
    const file = tmpStore();
    fs.mkdirSync(pendingFolder(file), { recursive: true });
    const bad = path.join(pendingFolder(file), '001795734806111-1-0-verification.json');
    fs.writeFileSync(bad, 'not json');
    const store = await Store.open({ file });
    try {
      assert.deepEqual(store.warnings.map((w) => w.kind), ['pending-write']);
      assert.match(store.warnings[0]!.message, /cannot be read .* moved to .*\.damaged/);
      assert.ok(fs.existsSync(`${bad}.damaged`));
    } finally {
      store.close();
    }
  });

  it('a record of a kind no loaded code knows stays for a process that knows it', async () => {
    const file = tmpStore();
    const other = writePending(file, 'some-future-kind', { x: 1 });
    (await Store.open({ file })).close();
    assert.ok(fs.existsSync(other));
  });

  it('a verification record that says something else is reported and kept for the next open', async () => {
    const file = tmpStore();
    const wrong = writePending(file, 'verification', { prdPath: 7 });
    const store = await Store.open({ file });
    try {
      assert.deepEqual(store.warnings.map((w) => w.kind), ['pending-write']);
      assert.match(store.warnings[0]!.message, /not a verification record/);
      assert.ok(fs.existsSync(wrong));
    } finally {
      store.close();
    }
  });
});
