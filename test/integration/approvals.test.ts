import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PendingApproval } from '../../src/agent/pending-approvals';
import type { RunResult } from '../../src/algorithm/engine';
import { PROPOSAL_SCHEME } from '../../src/vscode/run/proposal-documents';
import { activateIdealState, type IdealStateApi } from './ideal-state';

// The sample workspace's scripted demo (.ideal-state/demo): a scripted model, labelled as one,
// whose specialist edits src/greet.js. No answerer is set: each request waits as a pending
// approval, as it does for a person, and the test answers it the way the ISC table does.
const MODELS_FILE = '.ideal-state/demo/models.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
const onDisk = (rel: string) => fs.readFileSync(path.join(folder().fsPath, rel));

async function until<T>(what: string, get: () => T | undefined | Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await get();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('approvals of a run as state: the ISC table, the diff editor, the Runs view (scripted model)', function () {
  this.timeout(150_000);
  const models = () => vscode.workspace.getConfiguration('idealState.models');
  let api: IdealStateApi;
  let original: Buffer;
  const prdsDir = () => path.join(folder().fsPath, '.ideal-state/prds');
  let prdsBefore: string[] = [];

  before(async () => {
    api = await activateIdealState();
    api.runs.answerApprovalsWith(undefined);
    await models().update('configFile', MODELS_FILE, vscode.ConfigurationTarget.Workspace);
    original = onDisk('src/greet.js');
    prdsBefore = fs.readdirSync(prdsDir());
  });

  afterEach(() => {
    // A failed test leaves nothing waiting and no changed file for the next one.
    for (const a of api.runs.approvals.list()) api.runs.decideApproval(a.id, 'deny', 'the test ended');
    if (!onDisk('src/greet.js').equals(original)) fs.writeFileSync(path.join(folder().fsPath, 'src/greet.js'), original);
  });

  after(async () => {
    await models().update('configFile', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.writeFileSync(path.join(folder().fsPath, 'src/greet.js'), original);
    for (const name of fs.readdirSync(prdsDir()).filter((n) => !prdsBefore.includes(n))) fs.rmSync(path.join(prdsDir(), name));
  });

  it('an edit waits for approval in the registry and the table; Show Diff opens the file beside the proposal; Approve in the table applies the WorkspaceEdit', async () => {
    // The file is open in an editor, as a person working on it would have it: the run's edit must show there, saved.
    const document = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder(), 'src/greet.js'));
    await vscode.window.showTextDocument(document);
    const running = Promise.resolve(vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: REQUEST, effort: 'STANDARD' }));
    const edit = await until<PendingApproval>('the edit to wait for approval', () => api.runs.approvals.list().find((a) => a.kind === 'edit'));
    const runId = edit.runId;
    assert.match(runId, /^run-/);
    assert.equal(edit.path, 'src/greet.js');
    assert.equal(edit.title, 'Edit src/greet.js');
    assert.match(edit.proposed ?? '', /export function farewell\(name\) \{/);
    assert.ok(edit.proposed!.startsWith(original.toString('utf8').split('\n')[0]!), 'the proposal is the whole file, not a fragment');
    assert.ok(onDisk('src/greet.js').equals(original), 'nothing is written while the edit waits');

    // The Runs view groups the run under "Needs approval".
    const groups = await api.iscTable.runs.getChildren();
    const waiting = groups.find((g) => g.kind === 'group' && g.group.id === 'approval');
    assert.ok(waiting?.kind === 'group' && waiting.runs.some((r) => r.id === runId && r.pendingApprovals === 1), JSON.stringify(groups.map((g) => g.kind === 'group' && [g.group.id, g.runs.map((r) => r.id)])));

    // The run's table (opened beside when the run started) shows the pending edit with its buttons.
    await until('the run\'s table', () => (api.iscTable.tables.openRunIds().includes(runId) ? true : undefined));
    const shown = await until('the table to show the approval', async () => {
      const s = await api.iscTable.tables.shown(runId);
      return s.approvals?.length ? s : undefined;
    });
    assert.deepEqual(shown.approvals, [{ id: edit.id, kind: 'edit', what: 'src/greet.js', buttons: ['Show Diff', 'Approve', 'Always for this run', 'Deny'] }]);
    const panel = api.iscTable.tables.open(runId, { beside: true });

    // Show Diff from the table: VS Code's diff editor, the file on the left, the read-only proposal on the right.
    const diff = await panel.requestAsView('showDiff', { approvalId: edit.id });
    assert.equal(diff.ok, true, diff.message);
    const tab = await until('the diff editor', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME),
    );
    const input = tab.input as vscode.TabInputTextDiff;
    assert.equal(input.original.toString(), vscode.Uri.joinPath(folder(), 'src/greet.js').toString());
    assert.equal((await vscode.workspace.openTextDocument(input.modified)).getText(), edit.proposed);
    assert.match(tab.label, /src\/greet\.js/);
    assert.ok(onDisk('src/greet.js').equals(original), 'Show Diff writes nothing');

    // Approve in the table: the first answer wins; the notification's late answer changes nothing.
    const approved = await panel.requestAsView('decide', { approvalId: edit.id, answer: 'approve' });
    assert.equal(approved.ok, true, approved.message);
    assert.equal(api.runs.decideApproval(edit.id, 'deny', 'the notification').decided, false);
    // Once the run has written and saved the file, the answered edit's diff editor closes.
    await until('the diff editor to close', () =>
      vscode.window.tabGroups.all.flatMap((g) => g.tabs).some((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === PROPOSAL_SCHEME) ? undefined : true,
    30_000);
    assert.match(onDisk('src/greet.js').toString('utf8'), /export function farewell\(name\)/, 'written before its diff closed');

    // VERIFY's commands: the exact command lines, answered through the palette command's scripted form.
    const commands = await until<PendingApproval>('the verification commands', () => api.runs.approvals.list(runId).find((a) => a.kind === 'command'));
    assert.match(commands.command ?? '', /^node -e .*farewell\('Ada'\)/m);
    assert.equal(await vscode.commands.executeCommand('idealState.decideApproval', { approvalId: commands.id, answer: 'approve' }), true);

    const result = await running;
    assert.ok(result, 'the command returned the run');
    assert.equal(result.state, 'COMPLETE', result.reason);
    assert.match(onDisk('src/greet.js').toString('utf8'), /export function farewell\(name\)/);
    assert.match(document.getText(), /export function farewell\(name\)/, 'applied through the editor');
    assert.equal(document.isDirty, false, 'and saved');
    assert.equal(document.getText(), onDisk('src/greet.js').toString('utf8'));
    assert.deepEqual(api.runs.approvals.list(runId), []);
    const after = await api.iscTable.runs.getChildren();
    assert.ok(!after.some((g) => g.kind === 'group' && g.group.id === 'approval'), 'nothing waits any more');

    const restored = await vscode.commands.executeCommand<string[]>('idealState.undoRunChanges', { runId, confirmed: true });
    assert.deepEqual(restored, [result.run.prdPath, 'src/greet.js'], 'the file, and the PRD the run created');
    assert.ok(onDisk('src/greet.js').equals(original));
  });

  it('cancelling a run denies the edit it left pending, and the file stays as it was', async () => {
    const running = Promise.resolve(vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: REQUEST, effort: 'STANDARD' }));
    const edit = await until<PendingApproval>('the edit to wait for approval', () => api.runs.approvals.list().find((a) => a.kind === 'edit'));
    assert.equal(await vscode.commands.executeCommand<number>('idealState.cancelRun'), 1);
    assert.deepEqual(api.runs.approvals.list(edit.runId), []);
    assert.equal(api.runs.decideApproval(edit.id, 'approve', 'the ISC table').decided, false, 'a late approval changes nothing');
    const result = await running;
    assert.equal(result?.state, 'CANCELLED');
    assert.ok(onDisk('src/greet.js').equals(original), 'the denied edit was never applied');
  });
});
