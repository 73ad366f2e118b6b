import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AnyCriterion } from '../../src/model';
import { activateIdealState, type IdealStateApi } from './ideal-state';
import { HOSTILE_TEXT, storeTableRun } from './table-seed';

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
    assert.equal(treeItem.description, 'STANDARD · 1/3 · 1 min 1 s');
    assert.deepEqual(treeItem.command?.arguments, [runId]);
    // Stored RUNNING but not going in this window: it stopped on the way, so it can be resumed, not cancelled.
    assert.equal(treeItem.contextValue, 'run.resumable');
  });

  it('comes back through its serializer with the run id the view saved, as after a reload', async () => {
    // What VS Code does after a reload: a bare panel of our type and the state the view kept.
    // (The web workbench of the two-launch harness starts each launch in a fresh browser
    // context, so it restores no editors; the e2e suite reloads a real window instead.)
    api.iscTable.tables.close(runId);
    const panel = vscode.window.createWebviewPanel('idealState.iscTable', 'ISC (restoring)', vscode.ViewColumn.Active, {});
    await api.iscTable.tables.deserializeWebviewPanel(panel, { runId, filter: { outcome: 'ALL', priority: 'ALL', domain: 'ALL', text: '' }, sort: { key: 'id', descending: false }, expanded: [] });
    const shown = await api.iscTable.tables.shown(runId);
    assert.deepEqual(shown.rows.map((r) => r.id), ['ISC-1', 'ISC-2', 'ISC-3']);
    assert.equal(shown.rows[1]!.text, HOSTILE_TEXT);
    assert.equal(shown.phase, 'EXECUTE');
    assert.deepEqual(api.iscTable.tables.sent(runId).map((m) => m.type), ['snapshot'], 'a restored view starts from a snapshot');
    assert.match(panel.title, /greet users by name/);
  });

  it('closes a restored panel that has no run id instead of showing nothing', async () => {
    const panel = vscode.window.createWebviewPanel('idealState.iscTable', 'ISC (no state)', vscode.ViewColumn.Active, {});
    let closed = false;
    panel.onDidDispose(() => (closed = true));
    await api.iscTable.tables.deserializeWebviewPanel(panel, undefined);
    assert.equal(closed, true);
  });

  it('opens the tables of three runs beside the editor in one group, not a group each', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const store = await api.store();
    const ids = [1, 2, 3].map((n) => `run-${Date.now().toString(36)}grp${n}`);
    for (const id of ids) storeTableRun(store, id, `Integration: run ${id.slice(-1)} beside the editor`);
    // An editor in the first group, as when a person starts a run from a file.
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument({ content: 'the editor', language: 'plaintext' }), vscode.ViewColumn.One);
    for (const id of ids) {
      const table = api.iscTable.tables.open(id, { beside: true });
      await api.iscTable.tables.shown(id);
      // The person works in the table (rates the run, opens a diff): its group is the active one
      // when the next run starts, and "beside" the active group would be a new group each time.
      table.panel.reveal(undefined, false);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const groups = vscode.window.tabGroups.all;
    assert.equal(groups.length, 2, groups.map((g) => g.tabs.map((t) => t.label).join(', ')).join(' | '));
    const tables = groups[1]!.tabs.map((t) => t.label);
    assert.deepEqual(tables.filter((l) => /run \d beside the editor/.test(l)).length, 3, tables.join(', '));
    for (const id of ids) api.iscTable.tables.close(id);
  });

  it("shows what a run's model calls spent, as the provider billed them: dollars in the Runs view, tokens (fresh, cached, written, output) per run and per phase in its tooltip and the table's header", async () => {
    const store = await api.store();
    const id = `run-${Date.now().toString(36)}spend`;
    storeTableRun(store, id, 'Integration: a run that called a model');
    const at = new Date().toISOString();
    // Two EXECUTE turns on Anthropic (the second reads the first's cached prefix) and an OBSERVE call, as the contract fake billed them.
    const call = (seq: number, phase: 'OBSERVE' | 'EXECUTE', e: { inputTokens: number; outputTokens: number; costUsd: number; cachedInputTokens?: number; cacheWriteTokens?: number }) => ({ runId: id, seq, at, phase, kind: 'model' as const, role: 'manager' as const, message: 'call', ...e });
    store.events.save(call(0, 'OBSERVE', { inputTokens: 400, outputTokens: 190, costUsd: 0.00406 }));
    store.events.save(call(1, 'EXECUTE', { inputTokens: 1101, cacheWriteTokens: 1101, outputTokens: 32, costUsd: 0.00460875 }));
    store.events.save(call(2, 'EXECUTE', { inputTokens: 1257, cachedInputTokens: 1101, cacheWriteTokens: 156, outputTokens: 35, costUsd: 0.0014403 }));
    await vscode.commands.executeCommand('idealState.openIscTable', id);
    const shown = await api.iscTable.tables.shown(id);
    assert.equal(shown.header?.spent, '2,758 tokens in (1,101 cached, 1,257 written) / 257 out, $0.0101');
    const groups = await api.iscTable.runs.getChildren();
    let node: Awaited<ReturnType<typeof api.iscTable.runs.getChildren>>[number] | undefined;
    for (const g of groups) for (const n of await api.iscTable.runs.getChildren(g)) if (n.kind === 'run' && n.run.id === id) node = n;
    assert.ok(node, 'the run is in the Runs view');
    const item = api.iscTable.runs.getTreeItem(node);
    assert.match(String(item.description), / · \$0\.0101$/);
    // The tooltip is Markdown made with appendText: its text comes back escaped (spaces as &nbsp;, punctuation backslashed).
    const markdown = typeof item.tooltip === 'string' ? item.tooltip : (item.tooltip?.value ?? '');
    const tooltip = markdown.replace(/&nbsp;/g, ' ').replace(/\\([\\`*_{}[\]()#+\-.!|$<>~])/g, '$1');
    assert.match(tooltip, /spent 2,758 tokens in \(1,101 cached, 1,257 written\) \/ 257 out, \$0\.0101/);
    assert.match(tooltip, /OBSERVE: 400 tokens in \/ 190 out, \$0\.0041/);
    assert.match(tooltip, /EXECUTE: 2,358 tokens in \(1,101 cached, 1,257 written\) \/ 67 out, \$0\.0060/);
    api.iscTable.tables.close(id);
  });
});
