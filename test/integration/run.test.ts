import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../src/agent/approvals';
import type { RunResult } from '../../src/algorithm/engine';
import type { RunDelta } from '../../src/app/run-sessions';
import type { RunProgress } from '../../src/vscode/run/run-service';
import { activateIdealState, extensionEngine } from './ideal-state';

// The sample workspace's scripted demo (.ideal-state/demo): a scripted model, labelled as one,
// whose specialist edits src/greet.js; GREP and CLI criteria check the result.
const MODELS_FILE = '.ideal-state/demo/models.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

const folder = () => vscode.workspace.workspaceFolders![0]!.uri;
const onDisk = (rel: string) => fs.readFileSync(path.join(folder().fsPath, rel));

describe('a run of the Algorithm in the editor (scripted model)', function () {
  this.timeout(120_000);
  const models = () => vscode.workspace.getConfiguration('idealState.models');
  let asked: ApprovalRequest[] = [];
  let original: Buffer;
  const prdsDir = () => path.join(folder().fsPath, '.ideal-state/prds');
  let prdsBefore: string[] = [];

  before(async () => {
    const api = await activateIdealState();
    await models().update('configFile', MODELS_FILE, vscode.ConfigurationTarget.Workspace);
    original = onDisk('src/greet.js');
    prdsBefore = fs.readdirSync(prdsDir());
    // The test answers in place of the dialog (the e2e test clicks the real one); the run's
    // policy — trust, auto-approve, allow-list — still decides first.
    api.runs.answerApprovalsWith((request) => {
      asked.push(request);
      return 'approve';
    });
  });

  after(async () => {
    const api = await activateIdealState();
    api.runs.answerApprovalsWith(undefined);
    api.runs.simulateTrust(undefined);
    await models().update('configFile', undefined, vscode.ConfigurationTarget.Workspace);
    fs.writeFileSync(path.join(folder().fsPath, 'src/greet.js'), original);
    // The runs' PRDs go, so later suites see the workspace as the fixture has it.
    for (const name of fs.readdirSync(prdsDir()).filter((n) => !prdsBefore.includes(n))) fs.rmSync(path.join(prdsDir(), name));
  });

  beforeEach(() => {
    asked = [];
  });

  it('edits a file through WorkspaceEdit after approval, verifies GREP and CLI criteria, ends COMPLETE, and Undo Run Changes restores the file byte for byte', async () => {
    const api = await activateIdealState();
    const greet = vscode.Uri.joinPath(folder(), 'src/greet.js');
    // Open in an editor: the run's edit must show there, saved, and be undoable.
    const document = await vscode.workspace.openTextDocument(greet);
    await vscode.window.showTextDocument(document);
    const deltas: RunDelta[] = [];
    const progress: RunProgress[] = [];
    const listening = api.runs.onDidChangeRun((d) => {
      deltas.push(d);
      // What the status bar and the progress notification show at each step, as of that step.
      const now = d.kind === 'step' ? api.runs.activeRuns().find((r) => r.runId === d.runId) : undefined;
      if (now) progress.push(now);
    });
    let result: RunResult | undefined;
    try {
      result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: REQUEST, effort: 'STANDARD' });
    } finally {
      listening.dispose();
    }
    assert.ok(result, 'the command returned the run');
    assert.equal(result.state, 'COMPLETE', `${result.reason}\n${JSON.stringify(result.report?.results, null, 1)}`);

    // Approvals: the edit (with its diff), then the criteria's two commands as one set.
    assert.deepEqual(asked.map((a) => a.kind), ['edit', 'command']);
    assert.equal(asked[0]!.title, 'Edit src/greet.js');
    assert.match(asked[0]!.detail, /\+export function farewell\(name\) \{/);
    assert.match(asked[1]!.detail, /^node -e .*farewell\('Ada'\)/m);

    // The edit is in the open editor and saved to disk, where the verifier read it.
    assert.match(document.getText(), /export function farewell\(name\)/);
    assert.equal(document.isDirty, false);
    assert.equal(onDisk('src/greet.js').toString('utf8'), document.getText());

    // Every criterion verified by its method: GREP and CLI, with evidence.
    const byId = new Map(result.report!.results.map((r) => [r.criterionId, r]));
    const methods = new Map(result.criteria.map((c) => [c.id, c.verify?.type]));
    assert.deepEqual([...methods.entries()].sort(), [['ISC-1', 'GREP'], ['ISC-2', 'CLI'], ['ISC-3', 'CLI'], ['ISC-4', 'CLI'], ['ISC-A-1', 'GREP']]);
    for (const [id, r] of byId) assert.equal(r.outcome, 'PASS', `${id}: ${r.evidence}`);

    // Listeners heard the run move, each commit once: phases in order, every stored event in exactly one step, one end.
    const steps = deltas.flatMap((d) => (d.kind === 'step' && d.runId === result.run.id ? [d] : []));
    const phases = [...new Set(steps.map((d) => d.run.phase))];
    assert.deepEqual(phases, ['OBSERVE', 'THINK', 'PLAN', 'BUILD', 'EXECUTE', 'VERIFY', 'LEARN']);
    const stored = (await api.store()).events.where('run_id = ?', [result.run.id], 'seq').map((e) => e.seq);
    assert.deepEqual(steps.flatMap((d) => d.events.map((e) => e.seq)), stored, 'every event told once, in order');
    assert.deepEqual(deltas.filter((d) => d.kind === 'ended'), [{ kind: 'ended', runId: result.run.id, state: 'COMPLETE' }]);
    // At its last step: criteria rows, budget use, the scripted model's label.
    assert.equal(progress.length, steps.length, 'the run was going at every step');
    const last = progress[progress.length - 1]!;
    assert.equal(last.state, 'COMPLETE');
    assert.equal(last.model, 'scripted: demo-run');
    assert.deepEqual(last.criteria.map((c) => `${c.id} ${c.outcome}`), ['ISC-1 PASS', 'ISC-2 PASS', 'ISC-3 PASS', 'ISC-4 PASS', 'ISC-A-1 PASS']);
    assert.ok(last.budget.seconds === 120 && last.budget.percent >= 0);

    // The run's PRD on disk: criteria checked, a LOG entry, status COMPLETE.
    assert.ok(result.run.prdPath);
    const prd = extensionEngine().parsePrd(onDisk(result.run.prdPath).toString('utf8'));
    assert.equal(prd.criteria.length, 5);
    assert.ok(prd.criteria.every((c) => c.checked), 'every criterion checked');
    assert.equal(prd.log.length, 1);
    assert.equal(prd.meta.status, 'COMPLETE');

    // Undo Run Changes: the file back exactly as it was, in the editor and on disk; the PRD the run created removed.
    const restored = await vscode.commands.executeCommand<string[]>('idealState.undoRunChanges', { runId: result.run.id, confirmed: true });
    assert.deepEqual(restored, [result.run.prdPath, 'src/greet.js']);
    assert.equal(fs.existsSync(path.join(folder().fsPath, result.run.prdPath)), false, 'the PRD the run created is gone');
    assert.ok(onDisk('src/greet.js').equals(original), 'restored byte for byte');
    assert.equal(document.getText(), original.toString('utf8'));
    assert.equal(document.isDirty, false);
    // Undone once, it has nothing left to undo: no file is "restored" or deleted a second time.
    assert.deepEqual(await vscode.commands.executeCommand<string[]>('idealState.undoRunChanges', { runId: result.run.id, confirmed: true }), []);
    assert.ok(onDisk('src/greet.js').equals(original));
  });

  it('Cancel Run stops the run at its next safe point: CANCELLED, state kept, the file untouched', async () => {
    const api = await activateIdealState();
    api.runs.answerApprovalsWith(async (request): Promise<'deny'> => {
      asked.push(request);
      // The person cancels while the edit waits for an answer.
      assert.equal(await vscode.commands.executeCommand<number>('idealState.cancelRun'), 1);
      return 'deny';
    });
    try {
      const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: REQUEST, effort: 'STANDARD' });
      assert.ok(result);
      assert.equal(result.state, 'CANCELLED', result.reason);
      assert.deepEqual(asked.map((a) => a.kind), ['edit']);
      assert.ok(onDisk('src/greet.js').equals(original), 'the file is untouched');
      const stored = (await api.store()).runs.get(result.run.id);
      assert.equal(stored?.state, 'CANCELLED');
      assert.equal(stored?.phase, 'EXECUTE');
      assert.equal((await api.store()).criteria.list(result.run.id, stored.criteriaVersion).length, 5, 'the criteria are kept');
      assert.deepEqual(api.runs.activeRuns(), []);
    } finally {
      api.runs.answerApprovalsWith((request) => {
        asked.push(request);
        return 'approve';
      });
    }
  });

  it('in Restricted Mode makes no edit, runs no command, writes no PRD, and does not end COMPLETE', async () => {
    const api = await activateIdealState();
    api.runs.simulateTrust(false);
    const prds = () => fs.readdirSync(path.join(folder().fsPath, '.ideal-state/prds')).sort();
    const prdsBefore = prds();
    try {
      const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: REQUEST, effort: 'STANDARD' });
      assert.ok(result, 'the run ran');
      assert.notEqual(result.state, 'COMPLETE');
      assert.equal(asked.length, 0, 'nobody is asked: an untrusted workspace allows no edit and no command');
      assert.ok(onDisk('src/greet.js').equals(original), 'the file is untouched');
      assert.equal(result.run.prdPath, undefined);
      assert.deepEqual(prds(), prdsBefore, 'no PRD written');
      const store = await api.store();
      assert.equal(store.checkpoints.where('run_id = ?', [result.run.id]).length, 0, 'nothing to undo');
    } finally {
      api.runs.simulateTrust(undefined);
    }
  });
});
