import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as vscode from 'vscode';
import type { RunResult } from '../../src/algorithm/engine';
import type { AnyCriterion } from '../../src/model';
import { activateIdealState, extensionEngine, type IdealStateApi } from './ideal-state';
import { BUILD, dropScripts, EXECUTE, GREET_CRITERIA, inWorkspace, OBSERVE, onceRun, said, PLAN, testPrd, THINK, useScript, waits } from './scripted-runs';

// The editor's run commands driven through their automation arguments (the prompts they
// skip are the quick picks and input boxes a person answers), each with a scripted model
// labelled as one: "Run Algorithm on This PRD", "Resume Run", "Cancel Run", Auto effort and
// an ISC template chosen in "Run Algorithm at Effort…".

const PRD = '.ideal-state/prds/PRD-20261122-run-on-prd-test.md';
const PRD_TEXT = testPrd('PRD-20261122-run-on-prd-test', 'Greet keeps its contract', `
## Problem Space
Prose the user wrote about greet; a run must leave it as it is.

## Ideal State Criteria

### Behaviour
- [ ] ISC-USR-001: The greet module exports a greet function by name | Verify: Grep: ^export function greet
- [ ] ISC-USR-002: Calling greet with an empty name throws an error | Verify: Grep: name is required
- [ ] ISC-USR-003: Greeting text reads Hello followed by the name

## Anti-Criteria
- [ ] ISC-A-USR-001: No debugger statement is left in the greet module | Verify: Grep: ^\\s*debugger;
`);

const steps = (store: Awaited<ReturnType<IdealStateApi['store']>>, runId: string) =>
  // A step with no next node is where the run stopped (a cancel) or ended.
  store.steps.where('run_id = ?', [runId], 'seq').map((s) => `${s.phase}${s.next ? `→${s.next}` : ' end'}`);

describe('the run commands in the editor (scripted model)', function () {
  this.timeout(120_000);
  let api: IdealStateApi;

  before(async () => {
    api = await activateIdealState();
    // Nothing here needs an approval (no edit, no command); anything asked is refused and shows in the run.
    api.runs.answerApprovalsWith(() => 'deny');
  });

  after(async () => {
    api.runs.answerApprovalsWith(undefined);
    await dropScripts();
    fs.rmSync(inWorkspace(PRD), { force: true });
  });

  it('Run Algorithm on This PRD keeps the user\'s criteria as written: OBSERVE adds an INFERRED one, cannot drop or reword theirs, and the PRD keeps its prose', async () => {
    fs.writeFileSync(inWorkspace(PRD), PRD_TEXT);
    const uri = vscode.Uri.file(inWorkspace(PRD));
    // The manager tries to reword ISC-USR-001, leaves out ISC-USR-002 and calls its own criterion EXPLICIT.
    await useScript('run-on-prd', [
      {
        object: {
          criteria: [
            { id: 'ISC-USR-001', text: 'The greet module exports greet and farewell functions', source: 'EXPLICIT' },
            { text: 'greet returns a string for every non-empty name', source: 'EXPLICIT' },
          ],
          decisions: [],
        },
      },
      { object: { criteria: [{ id: 'ISC-1', text: 'greet returns a string for every non-empty name', source: 'INFERRED' }], decisions: [] } },
      { object: { packets: [{ title: 'Check greet', criterionIds: ['ISC-USR-001', 'ISC-USR-002', 'ISC-USR-003', 'ISC-A-USR-001', 'ISC-1'] }] } },
      {
        object: {
          methods: [
            // A method for the user's row that has none, one for the new row, and an attempt to replace the user's own method.
            { criterionId: 'ISC-USR-003', verify: { type: 'GREP', pattern: 'Hello, \\$\\{name\\}!', glob: 'src/greet.js', expect: 'present' } },
            { criterionId: 'ISC-1', verify: { type: 'GREP', pattern: 'return `Hello', glob: 'src/greet.js', expect: 'present' } },
            { criterionId: 'ISC-USR-001', verify: { type: 'GREP', pattern: 'farewell', glob: 'src/greet.js', expect: 'present' } },
          ],
        },
      },
      EXECUTE,
    ]);
    const written = extensionEngine().parsePrd(PRD_TEXT).criteria;

    const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runOnPrd', uri);
    assert.ok(result, 'the command returned the run');
    assert.equal(result.state, 'COMPLETE', `${result.reason}\n${JSON.stringify(result.report?.results, null, 1)}`);
    assert.equal(result.run.effort, 'FAST', "the PRD's effort level");
    assert.equal(result.run.prdPath, PRD);

    // The store: every criterion of the user, as written, with its own method; the manager's one INFERRED.
    const store = await api.store();
    const stored = store.criteria.list(result.run.id);
    const byId = new Map(stored.map((c) => [c.id, c]));
    assert.deepEqual(stored.map((c) => c.id).sort(), ['ISC-1', 'ISC-A-USR-001', 'ISC-USR-001', 'ISC-USR-002', 'ISC-USR-003']);
    for (const c of written) {
      assert.equal(byId.get(c.id)?.text, c.text, `${c.id} kept as written`);
      assert.equal(byId.get(c.id)?.source, c.source ?? 'EXPLICIT', `${c.id} keeps its source`);
    }
    assert.deepEqual(byId.get('ISC-USR-001')?.verify, { type: 'GREP', pattern: '^export function greet', expect: 'present' }, "the user's method, not the manager's");
    assert.equal(byId.get('ISC-USR-003')?.verify?.type, 'GREP', 'BUILD filled in the missing method');
    assert.equal(byId.get('ISC-1')?.source, 'INFERRED', 'a criterion the user did not write is never EXPLICIT');
    assert.ok(stored.every((c) => c.outcome === 'PASS'), stored.map((c) => `${c.id} ${c.outcome}`).join(', '));

    // The PRD on disk: the user's lines with their text, the new row, the prose untouched, the run's status.
    const after = fs.readFileSync(inWorkspace(PRD), 'utf8');
    const prd = extensionEngine().parsePrd(after);
    for (const c of written) assert.equal(prd.criteria.find((x) => x.id === c.id)?.text, c.text, `${c.id} in the PRD as written`);
    assert.ok(prd.criteria.some((c) => c.id === 'ISC-1' && c.text === 'greet returns a string for every non-empty name'));
    assert.match(after, /^Prose the user wrote about greet; a run must leave it as it is\.$/m);
    assert.match(after, /^- \[x\] ISC-USR-001: The greet module exports a greet function by name \| Verify: Grep: \^export function greet$/m);
    assert.equal(prd.meta.status, 'COMPLETE');
  });

  it('Cancel Run stops a run mid-phase (CANCELLED, state kept), and Resume Run goes on from the last committed step and finishes, nothing done twice', async () => {
    // First half: the manager answers OBSERVE, THINK and PLAN, then BUILD's answer keeps it waiting.
    await useScript('resume-first', [OBSERVE, THINK, PLAN, waits(BUILD)]);
    let cancelled = 0;
    const cancelling = onceRun(api, (c) => said(c, 'PLAN → BUILD'), () => {
      // A moment into BUILD's model call, as a person pressing Cancel Run.
      setTimeout(() => void vscode.commands.executeCommand<number>('idealState.cancelRun').then((n) => (cancelled = n)), 300);
    });
    let first: RunResult | undefined;
    try {
      first = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request: 'greet keeps its contract', effort: 'FAST' });
    } finally {
      cancelling.dispose();
    }
    assert.ok(first);
    assert.equal(cancelled, 1, 'Cancel Run stopped the one run going');
    assert.equal(first.state, 'CANCELLED', first.reason);
    assert.match(first.reason ?? '', /cancelled during BUILD/);
    const runId = first.run.id;
    let store = await api.store();
    const stopped = store.runs.get(runId)!;
    assert.equal(stopped.state, 'CANCELLED');
    assert.equal(stopped.phase, 'BUILD');
    assert.deepEqual(store.criteria.list(runId, stopped.criteriaVersion).map((c) => c.id), GREET_CRITERIA.map((c) => c.id), 'the criteria are kept');
    assert.equal(store.packets.where('run_id = ?', [runId]).length, 1, "PLAN's packet is kept");
    assert.deepEqual(steps(store, runId), ['OBSERVE→THINK', 'THINK→PLAN', 'PLAN→BUILD', 'BUILD end']);
    assert.deepEqual(api.runs.activeRuns(), []);

    // Second half: a script that starts at BUILD. Were OBSERVE, THINK or PLAN run again, their
    // calls would get BUILD's answer, which does not fit their schema, and the run would fail.
    await useScript('resume-second', [BUILD, EXECUTE]);
    const resumed = await vscode.commands.executeCommand<RunResult | undefined>('idealState.resumeRun', runId);
    assert.ok(resumed);
    assert.equal(resumed.run.id, runId);
    assert.equal(resumed.state, 'COMPLETE', `${resumed.reason}\n${JSON.stringify(resumed.report?.results, null, 1)}`);

    store = await api.store();
    assert.deepEqual(steps(store, runId), ['OBSERVE→THINK', 'THINK→PLAN', 'PLAN→BUILD', 'BUILD end', 'BUILD→EXECUTE', 'EXECUTE→VERIFY', 'VERIFY→LEARN', 'LEARN end']);
    const events = store.events.where('run_id = ?', [runId], 'seq');
    assert.deepEqual(events.map((e) => e.seq), events.map((_, i) => i), 'one event per sequence number, none written twice');
    const modelCalls = (phase: string) => events.filter((e) => e.kind === 'model' && e.phase === phase).length;
    assert.deepEqual(['OBSERVE', 'THINK', 'PLAN'].map(modelCalls), [1, 1, 1], 'the manager was asked once per phase before the cancel');
    assert.ok(events.some((e) => e.message === 'run resumed at BUILD (iteration 1)'));
    assert.equal(events.filter((e) => /^run started/.test(e.message)).length, 1);
    assert.equal(store.reports.where('run_id = ?', [runId]).length, 1, 'verified once');
    assert.ok(store.criteria.list(runId).every((c: AnyCriterion) => c.outcome === 'PASS'));
    assert.equal(store.packets.where('run_id = ?', [runId]).length, 1, 'no packet planned twice');
  });

  it('Auto effort: the effort classifier picks the level from the request', async () => {
    await useScript('auto', [waits(OBSERVE)]);
    const request = 'Investigate and compare the database migration across all files, then deploy the API';
    const result = await cancelledAtStart(api, { request, effort: 'AUTO' });
    assert.equal(result.run.effort, 'DEEP', 'research, file scope, integration and multi-step cues');
    assert.equal(result.run.budgetSeconds, 1920);
    assert.equal(result.run.request, request);
    const first = (await api.store()).events.where('run_id = ?', [result.run.id], 'seq')[0]!;
    assert.match(first.message, /^run started: effort DEEP chosen by the classifier: multi-step, file scope, research, integration$/);
  });

  it('Auto effort: an explicit "effort EXTENDED:" prefix overrides the classifier, and the request is kept without it', async () => {
    await useScript('auto-prefix', [waits(OBSERVE)]);
    // Alone, "fix a typo" is the classifier's INSTANT.
    const result = await cancelledAtStart(api, { request: 'effort EXTENDED: fix a typo in the greet comment', effort: 'AUTO' });
    assert.equal(result.run.effort, 'EXTENDED');
    assert.equal(result.run.budgetSeconds, 480);
    assert.equal(result.run.request, 'fix a typo in the greet comment');
    const first = (await api.store()).events.where('run_id = ?', [result.run.id], 'seq')[0]!;
    assert.match(first.message, /explicit prefix "EXTENDED"/);
  });

  it("an ISC template chosen in the run command seeds the run's criteria, which OBSERVE refines; the request stays the user's", async () => {
    const template = (await api.definitions()).isc.get('code.bugfix')!.definition;
    // OBSERVE keeps ISC-BUG-003 and the first anti-criterion, rewords ISC-BUG-001 for this request, adds one, drops the rest.
    await useScript('template', [
      {
        object: {
          criteria: [
            { id: 'ISC-BUG-001', text: 'greet with an empty name no longer returns Hello, !', source: 'EXPLICIT' },
            { id: 'ISC-BUG-003', text: template.idealCriteria[2]!.text, source: 'IMPLICIT' },
            { id: 'ISC-A-BUG-001', anti: true, text: template.antiCriteria[0]!.text, source: 'IMPLICIT' },
            { text: 'greet throws an error when the name is empty', source: 'EXPLICIT' },
          ],
          decisions: [{ decision: 'Start from the code.bugfix template', rationale: 'The request is a defect fix' }],
        },
      },
      waits(THINK),
    ]);
    const request = 'Fix greet so an empty name is refused';
    let result: RunResult | undefined;
    const cancelling = onceRun(api, (c) => said(c, 'OBSERVE → THINK'), () => void vscode.commands.executeCommand('idealState.cancelRun'));
    try {
      result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', { request, effort: 'FAST', template: 'code.bugfix' });
    } finally {
      cancelling.dispose();
    }
    assert.ok(result);
    assert.equal(result.state, 'CANCELLED', result.reason);
    assert.equal(result.run.request, request, 'no template text appended to the request');
    const store = await api.store();
    const versions = store.criteria.versions(result.run.id);
    assert.ok(versions.length >= 2, `a starting version and OBSERVE's: ${versions.join(', ')}`);

    // The starting criteria are the template's: its ids, text, priority and methods, marked as coming from it.
    const seeded = store.criteria.list(result.run.id, versions[0]);
    const fromTemplate = [...template.idealCriteria.map((c) => ({ ...c, kind: 'criterion' })), ...template.antiCriteria.map((c) => ({ ...c, kind: 'anti-criterion' }))].sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual([...seeded].sort((a, b) => a.id.localeCompare(b.id)).map((c) => [c.id, c.kind, c.text, c.priority]), fromTemplate.map((c) => [c.id, c.kind, c.text, c.priority]));
    for (const c of seeded) {
      assert.equal(c.source, 'IMPLICIT');
      assert.equal(c.notes, `from ISC template code.bugfix ${template.version}`);
      assert.deepEqual(c.verify, fromTemplate.find((t) => t.id === c.id)!.verify);
    }
    const events = store.events.where('run_id = ?', [result.run.id], 'seq');
    assert.ok(events.some((e) => e.message.startsWith('starting criteria from ISC template code.bugfix: ISC-BUG-001')));

    // OBSERVE refined them: the reworded row keeps its id (and the template's method), the rest it left out are gone, its own is added.
    const refined = store.criteria.list(result.run.id, versions[versions.length - 1]);
    const byId = new Map(refined.map((c) => [c.id, c]));
    assert.deepEqual(refined.map((c) => c.id).sort(), ['ISC-1', 'ISC-A-BUG-001', 'ISC-BUG-001', 'ISC-BUG-003']);
    assert.equal(byId.get('ISC-BUG-001')?.text, 'greet with an empty name no longer returns Hello, !');
    assert.deepEqual(byId.get('ISC-BUG-001')?.verify, template.idealCriteria[0]!.verify);
    assert.equal(byId.get('ISC-1')?.text, 'greet throws an error when the name is empty');
  });
});

/** Starts a run through the command and cancels it as soon as it is going; the run's stored record is what the tests read. */
async function cancelledAtStart(api: IdealStateApi, args: { request: string; effort: string }): Promise<RunResult> {
  const cancelling = onceRun(api, () => true, () => void vscode.commands.executeCommand('idealState.cancelRun'));
  try {
    const result = await vscode.commands.executeCommand<RunResult | undefined>('idealState.runAlgorithm', args);
    assert.ok(result, 'the command returned the run');
    assert.equal(result.state, 'CANCELLED', result.reason);
    return result;
  } finally {
    cancelling.dispose();
  }
}
