import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { LoopResult } from '../../src/vscode/loop/loop-service';
import { activateIdealState, type IdealStateApi } from './ideal-state';
import { COLUMNS, copyLoopFixture, removeLoopFixture } from './loop-fixture';
import { dropScripts, inWorkspace, useScript, type Step } from './scripted-runs';

// Loop mode's builder–validator pair in the real editor, with a scripted model labelled as one:
// the sub-run of page 03 edits it (approved through the editor's approver, like a run's edit),
// its criteria then pass mechanically, and the validator rejects it: the page is put back as
// it was and the rejection is stored with its failures.

const PAGE = 'loop-docs/page-03.md';
// The sub-run's own criteria: OBSERVE drafts them anew from the template's seed (the ids are
// the run's), and FAST asks for four at least, so OBSERVE adds one of its own.
const CRITERIA = [
  { id: 'ISC-1', text: 'page-03 opens with a title', source: 'EXPLICIT' },
  { id: 'ISC-2', text: 'page-03 has a Usage section', source: 'EXPLICIT' },
  { id: 'ISC-3', text: 'page-03 names the readers it is for', source: 'INFERRED' },
  { id: 'ISC-A-1', anti: true, text: `No TODO placeholder remains in ${PAGE}`, source: 'IMPLICIT' },
];
const METHODS = [
  { criterionId: 'ISC-1', verify: { type: 'GREP', pattern: '^# ', glob: PAGE, expect: 'present' } },
  { criterionId: 'ISC-2', verify: { type: 'GREP', pattern: '^## Usage', glob: PAGE, expect: 'present' } },
  { criterionId: 'ISC-3', verify: { type: 'GREP', pattern: 'for readers', glob: PAGE, expect: 'present' } },
  { criterionId: 'ISC-A-1', verify: { type: 'GREP', pattern: 'TODO', glob: PAGE, expect: 'absent' } },
];

/** One sub-run of page 03 (OBSERVE … EXECUTE), then the validator's verdict on each criterion. */
const SCRIPT: Step[] = [
  { object: { title: 'Page 03 without its TODO', criteria: CRITERIA.map(({ id: _id, ...c }) => c), decisions: [] } },
  { object: { criteria: CRITERIA, decisions: [] } },
  { object: { packets: [{ title: `Finish ${PAGE}`, criterionIds: CRITERIA.map((c) => c.id) }] } },
  { object: { methods: METHODS } },
  { toolCalls: [{ name: 'edit_file', arguments: { path: PAGE, find: 'TODO: write the options of page 03.', replace: 'The options of page 03 are left out.' } }] } as Step,
  { text: '{"summary": "Replaced the TODO of page 03.", "assumptions": [], "evidence": ["page-03 has no TODO"]}' },
  { object: { outcome: 'PASS', evidence: 'The page opens with "# Page 03".' } },
  { object: { outcome: 'PASS', evidence: 'It has "## Usage".' } },
  { object: { outcome: 'FAIL', evidence: 'The TODO is gone but the options it promised are not written: the placeholder was only reworded.', repairTarget: 'write the options of page 03' } },
];

describe('loop mode in the editor: the builder–validator pair (scripted model)', function () {
  this.timeout(120_000);
  let api: IdealStateApi;

  before(async () => {
    api = await activateIdealState();
    await copyLoopFixture(api);
    api.loops.answerApprovalsWith(() => 'approve');
  });

  after(async () => {
    api.loops.answerApprovalsWith(undefined);
    await dropScripts();
    await removeLoopFixture();
  });

  it('a validator’s rejection puts the edited page back as it was and stores the notice with its failures', async () => {
    await useScript('loop-validator-rejects', SCRIPT);
    const original = fs.readFileSync(inWorkspace(PAGE), 'utf8');
    // Which run each approval was filed under: the sub-run that asked, so its ISC table shows it.
    const askedBy: (string | undefined)[] = [];
    api.loops.answerApprovalsWith((request) => {
      askedBy.push(request.runId);
      return 'approve';
    });
    const result = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: PAGE, isc: 'loop.docs', effort: 'FAST', agents: 1, maxIterations: 1 });
    api.loops.answerApprovalsWith(() => 'approve');
    assert.ok(result, 'the loop ran');
    assert.equal(result.state, 'FAILED', 'one iteration, the page still fails');
    assert.equal(fs.readFileSync(inWorkspace(PAGE), 'utf8'), original, 'the rejected edit was undone');

    const store = await api.store();
    const [page] = store.loops.artifactsOf(result.loopId);
    assert.ok(page);
    assert.equal(page.status, 'FAILING');
    assert.equal(page.runIds.length, 1, 'one sub-run worked it');
    assert.ok(askedBy.length >= 1, 'the edit was asked for');
    assert.deepEqual([...new Set(askedBy)], [page.runIds[0]], "each approval names the sub-run that asked");
    const notice = page.notices.at(-1);
    assert.ok(notice, 'a rejection notice');
    assert.equal(notice.verdict, 'rejected');
    assert.equal(notice.reverted, true);
    assert.match(notice.by, /validator/);
    assert.deepEqual(notice.failures.map((f) => `${f.criterionId} ${f.outcome}`), ['ISC-A-LD-001 FAIL']);
    assert.deepEqual(Object.keys(page.outcomes).sort(), [...COLUMNS].sort());

    // The sub-run is a run of the store, listed under its loop in the Runs view, and its matrix row opens it.
    const subRun = store.runs.get(page.runIds[0]!);
    assert.ok(subRun, 'the sub-run is in the store');
    const groups = await api.iscTable.runs.getChildren();
    const loopNode = (await Promise.all(groups.map((g) => api.iscTable.runs.getChildren(g)))).flat().find((n) => n.kind === 'loop' && n.loop.id === result.loopId);
    assert.ok(loopNode && loopNode.kind === 'loop', 'the loop has its node');
    assert.deepEqual((await api.iscTable.runs.getChildren(loopNode)).map((n) => n.kind === 'run' && n.run.id), [subRun.id]);
    const rootIds = groups.flatMap((g) => (g.kind === 'group' ? g.runs.map((r) => r.id) : []));
    assert.ok(!rootIds.includes(subRun.id), 'the sub-run is not listed again outside its loop');
    const shown = await api.loops.matrices.shown(result.loopId);
    assert.deepEqual(shown.rows.map((r) => r.file), [PAGE]);
  });

  it('Cancel on a sub-run in the Runs view cancels its loop: the page is left as it was and Resume can go on', async () => {
    await useScript('loop-validator-rejects', SCRIPT);
    const original = fs.readFileSync(inWorkspace(PAGE), 'utf8');
    const cancelled: string[] = [];
    // The sub-run asks to edit the page; before anyone answers, the person cancels that sub-run from the Runs view.
    api.loops.answerApprovalsWith(async (): Promise<'deny'> => {
      const store = await api.store();
      const [going] = store.runs.list(['PENDING', 'RUNNING', 'NEEDS_APPROVAL']);
      assert.ok(going, 'the sub-run is going while it waits');
      // The loop holds its sub-run while it waits: the Runs view nests it, never "0 sub-runs".
      const listed = (await api.loops.service.list()).find((l) => l.state === 'RUNNING');
      assert.deepEqual(listed?.runIds, [going.id], 'the going loop lists its waiting sub-run');
      cancelled.push(going.id);
      await vscode.commands.executeCommand('idealState.cancelRunInView', going.id);
      return 'deny';
    });
    try {
      const result = await vscode.commands.executeCommand<LoopResult | undefined>('idealState.runLoop', { glob: PAGE, isc: 'loop.docs', effort: 'FAST', agents: 1, maxIterations: 1 });
      assert.ok(result, 'the loop ran');
      assert.equal(cancelled.length, 1, 'one sub-run was cancelled');
      assert.equal(result.state, 'CANCELLED', 'cancelling a sub-run cancels its loop');
      assert.equal(fs.readFileSync(inWorkspace(PAGE), 'utf8'), original, 'nothing was written');
      const store = await api.store();
      assert.equal(store.loops.get(result.loopId)?.state, 'CANCELLED', 'stored as cancelled, so Resume can take it up');
      // The Runs view after Cancel: the loop cancelled with its one sub-run under it, cancelled too; nothing listed as running.
      const groups = await api.iscTable.runs.getChildren();
      const nodes = (await Promise.all(groups.map((g) => api.iscTable.runs.getChildren(g)))).flat();
      const loopNode = nodes.find((n) => n.kind === 'loop' && n.loop.id === result.loopId);
      assert.ok(loopNode && loopNode.kind === 'loop', 'the loop is in the Runs view');
      assert.equal(api.iscTable.runs.getTreeItem(loopNode).description, 'cancelled · 1 sub-run');
      assert.deepEqual(loopNode.runs.map((r) => [r.id, r.state]), [[cancelled[0], 'CANCELLED']]);
      assert.ok(!groups.some((g) => g.kind === 'group' && g.group.id === 'running'), 'nothing is listed as running after Cancel');
    } finally {
      api.loops.answerApprovalsWith(() => 'approve');
    }
  });
});
