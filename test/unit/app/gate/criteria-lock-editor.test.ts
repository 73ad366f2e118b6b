import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { approveChanges, changesSinceLock, compareWithLock, describeChanges, heldRecord, lockCriteria, lockStatus, readLock, revertCriterionText } from '../../../../src/app/gate';
import type { AnyCriterion } from '../../../../src/model';
import { applyDeltas, tableDeltas, tableLock, tableSnapshot } from '../../../../src/vscode/isc-table/snapshot';
import { aCriterion, aRun } from '../../support/builders';
import { DEMO_PRD, demoWorkspace, edit, stateDir } from '../../support/gate-lock-helpers';

/**
 * The editor's half of the criteria lock (issue 23) rests on these: Approve and Revert are
 * `src/app/gate` functions the CLI and the editor share, and the ISC table's lock badge is
 * part of its snapshot, sent as a delta when it changes.
 */
describe('the criteria lock for the editor: approve, revert and status in src/app/gate', function () {
  this.timeout(60_000);

  async function locked(): Promise<{ ws: string; env: NodeJS.ProcessEnv; original: string }> {
    const ws = demoWorkspace();
    const env = { ...process.env, IDEAL_STATE_STATE_DIR: stateDir() };
    await lockCriteria(ws, { by: 'a person', how: 'editor', now: new Date(), env });
    return { ws, env, original: fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8') };
  }

  it('Revert puts a re-labelled, re-worded, re-verified criterion back byte for byte, and the gate sees it as locked again', async () => {
    const { ws, env, original } = await locked();
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog file at the top level records the releases | Verify: Task: check: changelog exists', 'ISC-DEMO-004: [NICE] A changelog may exist | Verify: CLI: node --version'));
    const held = await heldRecord(ws, env);
    assert.ok(held && !('error' in held));
    const lockedPrd = held.prds.find((p) => p.path === DEMO_PRD)!;
    // The criterion, and the task it no longer names (its verification input as the gate now reads it).
    assert.deepEqual((await compareWithLock(ws, lockedPrd, new Date())).changes.map((c) => c.id), ['ISC-DEMO-004', 'check: changelog exists'], 'the edit is TAMPERED before');
    const reverted = revertCriterionText(fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8'), lockedPrd, 'ISC-DEMO-004');
    assert.ok(reverted.ok, reverted.ok ? '' : reverted.message);
    assert.deepEqual(reverted.restored, ['text', 'priority', 'verification method']);
    assert.equal(reverted.text, original, 'every byte as it was locked');
    fs.writeFileSync(path.join(ws, DEMO_PRD), reverted.text);
    assert.deepEqual((await compareWithLock(ws, lockedPrd, new Date())).changes, []);
  });

  it('Revert re-adds a deleted criterion with its locked text, priority and method; an unchanged one is left as it is', async () => {
    const { ws, env } = await locked();
    edit(ws, DEMO_PRD, (t) => t.replace(/^- \[ \] ISC-DEMO-004:.*\n/m, ''));
    const held = await heldRecord(ws, env);
    assert.ok(held && !('error' in held));
    const lockedPrd = held.prds[0]!;
    const now = fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8');
    const reverted = revertCriterionText(now, lockedPrd, 'ISC-DEMO-004');
    assert.ok(reverted.ok);
    assert.match(reverted.text, /^- \[ \] ISC-DEMO-004: A changelog file at the top level records the releases \| Verify: Task: check: changelog exists$/m);
    fs.writeFileSync(path.join(ws, DEMO_PRD), reverted.text);
    assert.deepEqual((await compareWithLock(ws, lockedPrd, new Date())).changes, [], 'the gate holds it as locked again');
    const same = revertCriterionText(reverted.text, lockedPrd, 'ISC-DEMO-001');
    assert.ok(same.ok && same.restored.length === 0 && same.text === reverted.text);
    const unknown = revertCriterionText(reverted.text, lockedPrd, 'ISC-NOPE-1');
    assert.ok(!unknown.ok && /ISC-NOPE-1 is not a locked criterion/.test(unknown.message));
  });

  it('Approve (how: editor) makes the next criteria version, logs who, how and when in the PRD, and nothing is TAMPERED after', async () => {
    const { ws, env } = await locked();
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog'));
    const held = await heldRecord(ws, env);
    assert.ok(held && !('error' in held));
    const now = new Date('2026-11-26T23:30:00.000Z');
    const changed = await changesSinceLock(ws, held, { now });
    assert.equal(changed.length, 1);
    const shown = describeChanges(changed);
    assert.match(shown, /ISC-DEMO-004 was changed \(priority CRITICAL → NICE\)/);
    assert.match(shown, /- ISC-DEMO-004: \[CRITICAL\] A changelog/);
    assert.match(shown, /\+ ISC-DEMO-004: \[NICE\] A changelog/);
    const result = await approveChanges(ws, held.kind, changed, { by: 'alice', how: 'editor', now, env });
    assert.deepEqual(result.approved.map((p) => [p.path, p.version, p.by, p.how]), [[DEMO_PRD, 2, 'alice', 'editor']]);
    assert.deepEqual(result.logProblems, []);
    const text = fs.readFileSync(path.join(ws, DEMO_PRD), 'utf8');
    assert.match(text, /^criteria_version: 2$/m);
    assert.match(text, /Criteria changes approved by alice in the editor at 2026-11-26T23:30:00\.000Z: ISC-DEMO-004 was changed/);
    const read = await readLock(ws, 'lock', env);
    assert.ok(read.ok && read.record);
    assert.equal(read.record.prds[0]!.criteria.find((c) => c.id === 'ISC-DEMO-004')!.priority, 'NICE');
    assert.deepEqual(await changesSinceLock(ws, { kind: 'lock', prds: read.record.prds }, { now: new Date() }), []);
  });

  it('status of one PRD: locked with its version, TAMPERED changes after an edit, "not locked" where nothing holds it', async () => {
    const { ws, env } = await locked();
    const clean = await lockStatus(ws, { env, now: new Date(), only: [DEMO_PRD] });
    assert.ok('rows' in clean);
    assert.deepEqual(clean.rows.map((r) => [r.path, r.held, r.version, r.changes.length]), [[DEMO_PRD, 'lock', 1, 0]]);
    edit(ws, DEMO_PRD, (t) => t.replace('ISC-DEMO-004: A changelog', 'ISC-DEMO-004: [NICE] A changelog'));
    const tampered = await lockStatus(ws, { env, now: new Date(), only: [path.join(ws, DEMO_PRD)] });
    assert.ok('rows' in tampered);
    assert.deepEqual(tampered.rows[0]!.changes.map((c) => c.id), ['ISC-DEMO-004']);
    const none = await lockStatus(demoWorkspace(), { env: { ...process.env, IDEAL_STATE_STATE_DIR: stateDir() }, now: new Date(), only: [DEMO_PRD] });
    assert.ok('rows' in none);
    assert.deepEqual(none.rows.map((r) => [r.path, r.held]), [[DEMO_PRD, 'not locked']]);
  });
});

describe('the ISC table snapshot carries the lock badge', () => {
  const base = () => {
    const criteria: AnyCriterion[] = [aCriterion({ id: 'ISC-1', text: 'One' }), aCriterion({ id: 'ISC-2', text: 'Two' })];
    return { run: aRun({ id: 'run-1' }), criteria, reports: [], events: [], abilities: { verify: true, edit: true, cancel: false, resume: false, rate: false } };
  };

  it('maps a PRD lock state to the table (only locked criteria changes are revertible) and sends a lock delta when it changes', () => {
    const locked = tableLock({ prdPath: DEMO_PRD, state: 'locked', version: 1, by: 'alice', at: '2026-11-26T00:00:00.000Z', changes: [], revertible: [] }, true);
    const tampered = tableLock(
      {
        prdPath: DEMO_PRD,
        state: 'tampered',
        version: 1,
        changes: [
          { id: 'ISC-2', what: 'criterion', summary: 'ISC-2 was changed (text)', diff: ['- ISC-2: [CRITICAL] Two', '+ ISC-2: [CRITICAL] Too'] },
          { id: 'tests/a.test.js', what: 'input', summary: 'the protected file tests/a.test.js was changed', diff: [] },
        ],
        revertible: ['ISC-2'],
      },
      true,
    );
    assert.deepEqual(
      tampered.changes.map((c) => [c.id, c.revertible]),
      [
        ['ISC-2', true],
        ['tests/a.test.js', false],
      ],
    );
    const before = tableSnapshot({ ...base(), lock: locked });
    const after = tableSnapshot({ ...base(), lock: tampered });
    assert.equal(before.lock?.state, 'locked');
    const deltas = tableDeltas(before, after);
    assert.deepEqual(deltas.map((d) => d.type), ['lock'], 'only the lock changed: one lock delta, no row');
    assert.deepEqual(applyDeltas(before, deltas), after);
    assert.deepEqual(tableDeltas(after, after), []);
    const gone = tableSnapshot(base());
    assert.equal(gone.lock, undefined, 'a run without a PRD has no lock badge');
    assert.deepEqual(applyDeltas(after, tableDeltas(after, gone)), gone);
  });
});
