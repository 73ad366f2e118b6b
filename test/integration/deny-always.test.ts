import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PendingApproval } from '../../src/agent/pending-approvals';
import type { RunResult } from '../../src/algorithm/engine';
import type { CriterionResult } from '../../src/model';
import { activateIdealState, extensionEngine, type IdealStateApi } from './ideal-state';

// "Deny always" from the ISC table (issue 28 §3): the scripted demo's run (.ideal-state/demo)
// edits src/greet.js and verifies with `node -e …` commands. The edit is approved; VERIFY's
// commands are answered "Deny always" on the table's card, as a person would. The denial is
// recorded in the state folder (the app's one record, src/app/denied-commands.ts); the run's
// criteria that need the commands are UNKNOWN "not approved", and the next Verify Criteria of
// the run's PRD asks nobody (a modal would hang this test) and reports the same.
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

interface Verification {
  set: { results: CriterionResult[]; passed: boolean; summary: string };
}

describe('deny always: a verification command denied from the ISC table is remembered and never asked again', function () {
  this.timeout(180_000);
  const models = () => vscode.workspace.getConfiguration('idealState.models');
  let api: IdealStateApi;
  let original: Buffer;
  let deniedFile = '';

  before(async () => {
    api = await activateIdealState();
    api.runs.answerApprovalsWith(undefined);
    await models().update('configFile', MODELS_FILE, vscode.ConfigurationTarget.Workspace);
    original = onDisk('src/greet.js');
    deniedFile = await extensionEngine().deniedCommandsFile(folder().fsPath);
    assert.ok(!fs.existsSync(deniedFile), `nothing was denied before: ${deniedFile}`);
  });

  after(async () => {
    for (const a of api.runs.approvals.list()) api.runs.decideApproval(a.id, 'deny', 'the test ended');
    await models().update('configFile', undefined, vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    fs.writeFileSync(path.join(folder().fsPath, 'src/greet.js'), original);
    // The denial is undone where the message says: the record in the state folder.
    fs.rmSync(deniedFile, { force: true });
  });

  it('offers "Deny always" on the card of VERIFY\'s commands, records it, and the next verification reports UNKNOWN "not approved" without asking', async () => {
    const running = Promise.resolve(vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: REQUEST, effort: 'STANDARD' }));
    const edit = await until<PendingApproval>('the edit to wait for approval', () => api.runs.approvals.list().find((a) => a.kind === 'edit'));
    const runId = edit.runId;
    await until('the run\'s table', () => (api.iscTable.tables.openRunIds().includes(runId) ? true : undefined));
    const panel = api.iscTable.tables.open(runId, { beside: true });
    // An edit has no remembered denial: no "Deny always" on its card.
    const editCard = await until('the edit on the table', async () => (await api.iscTable.tables.shown(runId)).approvals?.find((a) => a.id === edit.id));
    assert.deepEqual(editCard.buttons, ['Show Diff', 'Approve', 'Always for this run', 'Deny']);
    assert.equal((await panel.requestAsView('decide', { approvalId: edit.id, answer: 'never' })).ok, false, 'the host refuses "Deny always" for an edit');
    assert.equal((await panel.requestAsView('decide', { approvalId: edit.id, answer: 'approve' })).ok, true);

    const commands = await until<PendingApproval>('the verification commands', () => api.runs.approvals.list(runId).find((a) => a.kind === 'command'));
    const denied = (commands.command ?? '').split('\n').filter(Boolean);
    assert.ok(denied.length > 0 && denied.every((c) => c.startsWith('node -e')), commands.command);
    assert.equal(commands.remembersDenial, true);
    const card = await until('the commands on the table', async () => (await api.iscTable.tables.shown(runId)).approvals?.find((a) => a.id === commands.id));
    assert.deepEqual(card.buttons, ['Approve', 'Always for this run', 'Deny', 'Deny always']);
    const answered = await panel.requestAsView('decide', { approvalId: commands.id, answer: 'never' });
    assert.equal(answered.ok, true, answered.message);
    assert.match(answered.message ?? '', /^Denied always: .* not run or asked about again in this workspace/);
    assert.ok(answered.message?.endsWith(`remove ${denied.length === 1 ? 'it' : 'them'} from ${deniedFile}.`), answered.message);

    const result = await running;
    assert.ok(result, 'the command returned the run');
    // Recorded by the app's one record of denials, "always".
    const record = [...(await extensionEngine().deniedCommands(folder().fsPath)).values()];
    assert.deepEqual(record.map((d) => [d.command, d.always]).sort(), denied.map((c) => [c, true]).sort());
    const needing = (result.report?.results ?? []).filter((r) => r.outcome !== 'PASS' && /not approved/.test(r.evidence ?? ''));
    assert.ok(needing.length > 0, JSON.stringify(result.report?.results));
    assert.ok(needing.every((r) => r.outcome === 'UNKNOWN'), JSON.stringify(needing));

    // The next verification of the run's PRD: nobody is asked (a modal would hang here), the commands do not run.
    const prd = vscode.Uri.joinPath(folder(), result.run.prdPath!);
    const asked = api.runs.approvals.list().length;
    const v = await vscode.commands.executeCommand<Verification | undefined>('idealState.verifyCriteria', prd);
    assert.ok(v, 'Verify Criteria returned its results');
    assert.equal(api.runs.approvals.list().length, asked, 'no approval was asked for');
    const again = v.set.results.filter((r) => needing.some((n) => n.criterionId === r.criterionId));
    assert.equal(again.length, needing.length, JSON.stringify(v.set.results));
    for (const r of again) {
      assert.equal(r.outcome, 'UNKNOWN', JSON.stringify(r));
      assert.match(r.evidence ?? '', /not approved: a person chose "Deny always"/);
      assert.ok(r.evidence?.includes(deniedFile), `the evidence names the file to undo it in: ${r.evidence}`);
    }
    // The PRD keeps each criterion's method (a denial changes what runs, never what the PRD says).
    const text = fs.readFileSync(prd.fsPath, 'utf8');
    for (const c of denied) assert.ok(text.includes(c.replace(/^node -e /, '').slice(0, 20)), `the method of ${c} is still in the PRD`);

    await vscode.commands.executeCommand<string[]>('idealState.undoRunChanges', { runId, confirmed: true });
    assert.ok(onDisk('src/greet.js').equals(original));
  });
});
