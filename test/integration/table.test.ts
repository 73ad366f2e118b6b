import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { AnyCriterion } from '../../src/core/model';
import { activateIdealState, handoffFile, type IdealStateApi } from './ideal-state';
import { HOSTILE_TEXT, storeTableRun } from './table-seed';

// Named to run after the suites that close every editor: the table it leaves open is the
// one the after-reload suite expects the serializer to bring back.
describe('the ISC table of a stored run', () => {
  const runId = `run-${Date.now().toString(36)}tbl`;
  let api: IdealStateApi;

  before(async () => {
    api = await activateIdealState();
    storeTableRun(await api.store(), runId, 'Integration: greet users by name');
  });

  it('shows every stored criterion with its outcome, the phase, and hostile text as text', async () => {
    await vscode.commands.executeCommand('idealState.openIscTable', runId);
    const shown = await api.iscTable.tables.shown(runId);
    assert.equal(shown.runId, runId);
    assert.equal(shown.phase, 'BUILD');
    assert.deepEqual(
      shown.rows.map((r) => [r.id, r.outcome, r.status]),
      [
        ['ISC-1', 'PASS', 'DONE'],
        ['ISC-2', 'FAIL', 'PENDING'],
        ['ISC-3', '', 'PENDING'],
      ],
    );
    // Read back with textContent: the markup arrived as characters, not as an element.
    assert.equal(shown.rows[1]!.text, HOSTILE_TEXT);
    assert.deepEqual(api.iscTable.tables.sent(runId).map((m) => m.type), ['snapshot']);
  });

  it('sends one row, not the table, when one criterion changes in the store', async () => {
    const store = await api.store();
    const sentBefore = api.iscTable.tables.sent(runId).length;
    const row = store.criteria.list(runId).find((c) => c.id === 'ISC-3')!;
    store.criteria.update(runId, 1, { ...row, status: 'ACTIVE', claim: { by: 'specialist-2', at: new Date().toISOString() } } as AnyCriterion);
    api.iscTable.watch.touch(runId);
    await api.iscTable.tables.refresh(runId);
    const sent = api.iscTable.tables.sent(runId).slice(sentBefore);
    assert.deepEqual(sent, [{ type: 'row', rows: 1 }]);
    const shown = await api.iscTable.tables.shown(runId);
    assert.equal(shown.rows.find((r) => r.id === 'ISC-3')!.status, 'ACTIVE');
    assert.equal(shown.rows.find((r) => r.id === 'ISC-1')!.outcome, 'PASS', 'the other rows are as they were');
  });

  it('moves the stepper with a header delta alone when the run changes phase', async () => {
    const store = await api.store();
    const sentBefore = api.iscTable.tables.sent(runId).length;
    store.runs.save({ ...store.runs.get(runId)!, phase: 'EXECUTE', elapsedMs: 61_000, updatedAt: new Date().toISOString() });
    api.iscTable.watch.touch(runId);
    await api.iscTable.tables.refresh(runId);
    assert.deepEqual(api.iscTable.tables.sent(runId).slice(sentBefore), [{ type: 'header', rows: 0 }]);
    assert.equal((await api.iscTable.tables.shown(runId)).phase, 'EXECUTE');
  });

  it('lists the run in the Runs view under Running with its effort, passed/total and duration', async () => {
    const groups = await api.iscTable.runs.getChildren();
    const running = groups.find((g) => g.kind === 'group' && g.group.id === 'running');
    assert.ok(running && running.kind === 'group', JSON.stringify(groups.map((g) => g.kind === 'group' && g.group.id)));
    const item = running.runs.find((r) => r.id === runId);
    assert.ok(item, 'the run is in the Running group');
    const treeItem = api.iscTable.runs.getTreeItem({ kind: 'run', run: item });
    assert.equal(treeItem.label, 'Integration: greet users by name');
    assert.equal(treeItem.description, 'STANDARD · 1/3 · 1 min');
    assert.deepEqual(treeItem.command?.arguments, [runId]);
    // Stored RUNNING but not going in this window: it stopped on the way, so it can be resumed, not cancelled.
    assert.equal(treeItem.contextValue, 'run.resumable');
  });

  it('leaves the table open for the reload', () => {
    assert.ok(api.iscTable.tables.openRunIds().includes(runId));
    fs.writeFileSync(handoffFile('isc-table.json'), JSON.stringify({ runId }));
  });
});
