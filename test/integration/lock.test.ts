import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { gateStateFolder, heldSet, readLock } from '../../src/app/gate';
import { addPendingProposal, commandsAwaitingPerson, pendingProposals, removePendingProposal } from '../../src/app/proposals';
import type { AnyCriterion, Run } from '../../src/model';
import type { LockQuestion } from '../../src/vscode/lock';
import { activateIdealState, type IdealStateApi } from './ideal-state';

const PRD = '.ideal-state/prds/PRD-20261126-lock-editor.md';
const LINE_2 = '- [ ] ISC-LOCK-2: The release notes name every change | Verify: Grep: release notes';
const TEXT = ['---', 'prd: true', 'id: PRD-20261126-lock-editor', 'status: CRITERIA_DEFINED', 'effort_level: FAST', '---', '', '# Lock from the editor', '', '## Ideal State Criteria', '- [ ] ISC-LOCK-1: The greeting module is present | Verify: Read: src/greet.js', LINE_2, '', '## LOG', ''].join('\n');

/** What the commands return (src/vscode/lock/criteria-locks.ts). */
interface Acted {
  ok: boolean;
  message: string;
}

/**
 * The criteria lock from the editor (issue 23): Lock Criteria and Approve Criteria Changes
 * ask in a modal — answered here through the test hook, as a person would click — and write
 * through src/app/gate into the state folder the done gate reads (IDEAL_STATE_STATE_DIR, a
 * temporary folder: never the real home). The ISC table shows the badge, marks a TAMPERED row
 * with Approve and Revert, and Revert puts the locked line back. Nothing of it in Restricted Mode.
 */
describe('the criteria lock from the editor', () => {
  let api: IdealStateApi;
  let asked: LockQuestion[] = [];
  const stateBefore = process.env.IDEAL_STATE_STATE_DIR;
  const folder = () => vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const prdFile = () => path.join(folder(), PRD);
  const answer = (choice: string | undefined) => api.lock!.dialogs.answerWith((q) => (asked.push(q), choice));
  const lock = () => vscode.commands.executeCommand<Acted>('idealState.lockCriteria', { prdPath: PRD });
  const approve = () => vscode.commands.executeCommand<Acted>('idealState.approveCriteriaChanges', { prdPath: PRD });

  /** A finished run on `prdPath` with one criterion, stored as a run leaves it: what a run's ISC table shows. */
  const storedRun = async (suffix: string, request: string, prdPath: string): Promise<string> => {
    const store = await api.store();
    const at = new Date().toISOString();
    const runId = `run-${Date.now().toString(36)}${suffix}`;
    store.batch((tx) => {
      tx.runs.save({ id: runId, request, effort: 'STANDARD', state: 'COMPLETE', phase: 'LEARN', iteration: 1, criteriaVersion: 1, createdAt: at, updatedAt: at, budgetSeconds: 300, elapsedMs: 1000, prdPath, workspaceFolder: vscode.workspace.workspaceFolders![0]!.name });
      tx.criteria.saveVersion(runId, 1, [{ kind: 'criterion', id: 'ISC-LOCK-1', text: 'The greeting module is present', priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', createdAt: at, updatedAt: at } as AnyCriterion]);
    });
    return runId;
  };

  before(async () => {
    api = await activateIdealState();
    assert.ok(api.lock, 'the lock test hooks are there in ExtensionMode.Test');
    // The extension host's own environment: the gate functions read it at each call.
    process.env.IDEAL_STATE_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-lock-it-'));
    fs.writeFileSync(prdFile(), TEXT);
  });

  beforeEach(() => {
    asked = [];
  });

  afterEach(() => {
    api.lock!.dialogs.answerWith(undefined);
    api.lock!.simulateTrust(undefined);
  });

  after(() => {
    fs.rmSync(prdFile(), { force: true });
    if (stateBefore === undefined) delete process.env.IDEAL_STATE_STATE_DIR;
    else process.env.IDEAL_STATE_STATE_DIR = stateBefore;
  });

  it('refuses Lock, Approve and Revert in Restricted Mode, without asking and without writing a lock', async () => {
    api.lock!.simulateTrust(false);
    answer('Lock');
    for (const result of [await lock(), await approve()]) {
      assert.equal(result.ok, false);
      assert.match(result.message, /off in Restricted Mode\. Trust this workspace first/);
    }
    assert.deepEqual(asked, [], 'no dialog');
    const read = await readLock(folder(), 'lock');
    assert.ok(read.ok && read.record === undefined, 'nothing locked');
  });

  it('Lock Criteria shows what it locks in a modal; declined, nothing is locked; accepted, the gate holds the PRD as locked', async () => {
    answer(undefined);
    const declined = await lock();
    assert.equal(declined.ok, false);
    assert.equal((await heldSet(folder())).kind === 'locked', false, 'declined: nothing locked');
    answer('Lock');
    const result = await lock();
    assert.equal(result.ok, true, result.message);
    const question = asked.at(-1)!;
    assert.equal(question.kind, 'lock');
    assert.match(question.message, /^Lock 2 criteria of \.ideal-state\/prds\/PRD-20261126-lock-editor\.md\?/);
    assert.match(question.detail, /ISC-LOCK-1: \[CRITICAL\] The greeting module is present \| Verify: Read: src\/greet\.js/);
    assert.match(question.detail, /ISC-LOCK-2: \[CRITICAL\] The release notes name every change/);
    assert.match(question.detail, /inputs? their verification depends on: .*\.gitignore|inputs? their verification depends on/);
    const held = await heldSet(folder());
    assert.equal(held.kind, 'locked');
    assert.deepEqual(held.kind === 'locked' ? held.prds.map((p) => [p.path, p.version, p.how, p.criteria.map((c) => c.id)]) : [], [[PRD, 1, 'editor', ['ISC-LOCK-1', 'ISC-LOCK-2']]]);
    // Probe the probes (issue 28 §5): ISC-LOCK-1's Read already passes before any work, so the
    // lock says so and notes it under the criterion; ISC-LOCK-2's Grep fails and is not noted.
    assert.match(result.message, /ISC-LOCK-1 passes before any work: can this check fail\?/);
    assert.doesNotMatch(result.message, /ISC-LOCK-2/);
    const text = fs.readFileSync(prdFile(), 'utf8');
    assert.match(text, /ISC-LOCK-1: The greeting module is present \| Verify: Read: src\/greet\.js\n\s+- Probe: passes before any work — can this check fail\?/);
    assert.equal(text.match(/- Probe:/g)?.length, 1, text);
    assert.equal((await heldSet(folder())).kind, 'locked', 'the probe note does not change what is locked');
  });

  it('Approve Criteria Changes shows the diff in its modal; approved, the PRD is the next criteria version, logged in its LOG', async () => {
    fs.writeFileSync(prdFile(), TEXT.replace('ISC-LOCK-2: The release', 'ISC-LOCK-2: [NICE] The release'));
    answer(undefined);
    const declined = await approve();
    assert.equal(declined.ok, false);
    assert.match(declined.message, /Not approved/);
    answer('Approve');
    const result = await approve();
    assert.equal(result.ok, true, result.message);
    const question = asked.at(-1)!;
    assert.equal(question.kind, 'approve');
    assert.match(question.message, /^Approve 1 change to locked criteria\?/);
    assert.match(question.detail, /ISC-LOCK-2 was changed \(priority CRITICAL → NICE\)/);
    assert.match(question.detail, /- ISC-LOCK-2: \[CRITICAL\] The release notes/);
    assert.match(question.detail, /\+ ISC-LOCK-2: \[NICE\] The release notes/);
    const read = await readLock(folder(), 'lock');
    assert.ok(read.ok && read.record);
    assert.equal(read.record.prds[0]!.version, 2);
    assert.equal(read.record.prds[0]!.criteria[1]!.priority, 'NICE');
    const text = fs.readFileSync(prdFile(), 'utf8');
    assert.match(text, /^criteria_version: 2$/m);
    assert.match(text, /Criteria changes approved by .+ in the editor at \d{4}-\d\d-\d\dT/);
  });

  it('the ISC table shows the badge, a TAMPERED row with Approve and Revert, and Revert puts the locked line back byte for byte', async () => {
    const runId = `run-${Date.now().toString(36)}lock`;
    const store = await api.store();
    const at = new Date().toISOString();
    const run: Run = { id: runId, request: 'Integration: the lock badge', effort: 'STANDARD', state: 'COMPLETE', phase: 'LEARN', iteration: 1, criteriaVersion: 1, createdAt: at, updatedAt: at, budgetSeconds: 300, elapsedMs: 1000, prdPath: PRD, workspaceFolder: vscode.workspace.workspaceFolders![0]!.name };
    const criterion = (id: string, text: string): AnyCriterion => ({ kind: 'criterion', id, text, priority: 'CRITICAL', source: 'EXPLICIT', status: 'PENDING', createdAt: at, updatedAt: at }) as AnyCriterion;
    store.batch((tx) => {
      tx.runs.save(run);
      tx.criteria.saveVersion(runId, 1, [criterion('ISC-LOCK-1', 'The greeting module is present'), criterion('ISC-LOCK-2', 'The release notes name every change')]);
    });
    const locked = fs.readFileSync(prdFile(), 'utf8');
    const panel = api.iscTable.tables.open(runId);
    let shown = await api.iscTable.tables.shown(runId);
    assert.equal(shown.lock?.state, 'locked');
    assert.match(shown.lock!.text, /Locked .*criteria v2/);
    assert.match(shown.lock!.text, /The done gate holds an agent to this PRD: locked by .+ on \d{4}-\d\d-\d\d, criteria version 2\./, 'the table says the gate holds this PRD, and why');
    assert.deepEqual(shown.lock!.tampered, []);

    // The agent re-words the locked criterion: the row is TAMPERED, with Approve and Revert on it.
    const tamperedText = locked.replace('ISC-LOCK-2: [NICE] The release notes name every change', 'ISC-LOCK-2: [NICE] Release notes may exist');
    assert.notEqual(tamperedText, locked);
    fs.writeFileSync(prdFile(), tamperedText);
    const deadline = Date.now() + 20_000;
    for (;;) {
      await api.iscTable.tables.refresh(runId);
      shown = await api.iscTable.tables.shown(runId);
      if (shown.lock?.state === 'tampered' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    assert.equal(shown.lock?.state, 'tampered', JSON.stringify(shown.lock));
    assert.deepEqual(shown.lock!.tampered, [{ id: 'ISC-LOCK-2', buttons: ['Approve', 'Revert'] }]);
    assert.equal(shown.rows.find((r) => r.id === 'ISC-LOCK-2')!.outcome, 'TAMPERED');
    assert.deepEqual(shown.lock!.buttons, ['Approve changes…']);

    // Revert, as the row's button asks it: the file is as it was locked, every byte.
    const reverted = await panel.requestAsView('revertCriterion', { id: 'ISC-LOCK-2' });
    assert.equal(reverted.ok, true, reverted.message);
    assert.equal(fs.readFileSync(prdFile(), 'utf8'), locked);
    await api.iscTable.tables.refresh(runId);
    shown = await api.iscTable.tables.shown(runId);
    assert.equal(shown.lock?.state, 'locked');
    assert.deepEqual(shown.lock!.tampered, []);

    // Revert refuses in Restricted Mode.
    api.lock!.simulateTrust(false);
    const refused = await panel.requestAsView('revertCriterion', { id: 'ISC-LOCK-2' });
    assert.equal(refused.ok, false);
    assert.match(refused.message, /Restricted Mode/);
    api.iscTable.tables.close(runId);
  });

  it('offers the lock once when a run\'s unlocked criteria are first shown; "Not now" is not asked again', async () => {
    const other = '.ideal-state/prds/PRD-20261126-lock-offer.md';
    fs.writeFileSync(path.join(folder(), other), TEXT.replace('id: PRD-20261126-lock-editor', 'id: PRD-20261126-lock-offer'));
    try {
      const runId = await storedRun('offer', 'Integration: the lock offer', other);
      answer('Not now');
      api.iscTable.tables.open(runId);
      const shown = await api.iscTable.tables.shown(runId);
      assert.equal(shown.lock?.state, 'not-locked');
      assert.deepEqual(shown.lock!.buttons, ['Lock…']);
      const offers = () => asked.filter((q) => q.kind === 'offer');
      const deadline = Date.now() + 10_000;
      while (offers().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(offers().map((q) => q.message), [`Lock these criteria so the agent cannot change them? (${other})`]);
      assert.deepEqual(offers()[0]!.choices, ['Lock', 'Not now']);
      // Answered: shown again (closed and reopened), it is not offered again.
      api.iscTable.tables.close(runId);
      api.iscTable.tables.open(runId);
      await api.iscTable.tables.shown(runId);
      await new Promise((r) => setTimeout(r, 500));
      assert.equal(offers().length, 1, 'not asked again');
      assert.equal((await readLock(folder(), 'lock')).ok, true);
      api.iscTable.tables.close(runId);
    } finally {
      fs.rmSync(path.join(folder(), other), { force: true });
    }
  });

  it('a criteria proposal an agent left waiting: the table shows its exact lines; Review… adds it only on the person\'s yes, its command still held back', async function () {
    this.timeout(60_000);
    const command = 'node -e "process.exit(0)"';
    const waiting = await addPendingProposal(folder(), { prd: PRD, criteria: [{ text: 'The proposed criterion is checked by one command', verify: `CLI: ${command}` }], proposedAt: new Date().toISOString(), client: 'test-agent' });
    const state = await api.lock!.state(folder(), PRD);
    const shown = state.proposals?.find((p) => p.id === waiting.id);
    assert.ok(shown, JSON.stringify(state));
    assert.match(shown.lines.join('\n'), /^- \[ \] ISC-LOCK-\d+: \[I\] The proposed criterion is checked by one command \| Verify: CLI: node -e "process\.exit\(0\)"$/m);
    assert.deepEqual(shown.commands, [command]);

    // The table shows it, with its Review… button.
    const runId = await storedRun('prop', 'Integration: a pending proposal', PRD);
    answer(undefined);
    api.iscTable.tables.open(runId);
    const table = await api.iscTable.tables.shown(runId);
    const row = table.lock?.proposals.find((p) => p.id === waiting.id);
    assert.ok(row, JSON.stringify(table.lock));
    assert.match(row.text, /Waiting for you Proposal [0-9a-f]{12} from the MCP client "test-agent"/);
    assert.match(row.text, /\+ - \[ \] ISC-LOCK-\d+: \[I\] The proposed criterion is checked by one command/);
    assert.deepEqual(row.buttons, ['Review…']);
    api.iscTable.tables.close(runId);

    const before = fs.readFileSync(prdFile(), 'utf8');
    answer(undefined);
    const closed = await api.lock!.acceptProposal(folder(), PRD, waiting.id);
    assert.equal(closed.ok, false);
    assert.equal(fs.readFileSync(prdFile(), 'utf8'), before, 'the dialog closed: nothing written');
    assert.equal((await pendingProposals(folder())).length, 1, 'it keeps waiting');
    const question = asked.at(-1)!;
    assert.match(question.message, /Add this criterion an agent proposed to .* as criteria version \d+\?/);
    assert.match(question.detail, /Verify: CLI: node -e "process\.exit\(0\)"/);
    assert.match(question.detail, /each still asks you before it first runs, whatever the allow-list says/);

    answer('Add Criteria');
    const added = await api.lock!.acceptProposal(folder(), PRD, waiting.id);
    assert.equal(added.ok, true, added.message);
    const after = fs.readFileSync(prdFile(), 'utf8');
    assert.match(after, /The proposed criterion is checked by one command \| Verify: CLI: node -e "process\.exit\(0\)"/);
    assert.match(after, /accepted by a person in the editor/, 'the LOG says who agreed');
    assert.deepEqual(await pendingProposals(folder()), []);
    assert.ok((await commandsAwaitingPerson(folder())).has(command), 'its command waits for the person before it first runs');
  });

  it('a proposal that lands while the table is open (an agent over MCP, another process) shows without any change in the workspace', async function () {
    this.timeout(60_000);
    const runId = await storedRun('land', 'Integration: a proposal lands', PRD);
    api.iscTable.tables.open(runId);
    assert.deepEqual((await api.iscTable.tables.shown(runId)).lock?.proposals ?? [], [], 'no proposal waits yet');
    // The table has asked for the PRD's lock: the user's state folder, outside the workspace, is watched from then on.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // What the MCP server does in its own process: the proposal goes into the state folder, nothing into the workspace.
    const waiting = await addPendingProposal(folder(), { prd: PRD, criteria: [{ text: 'The landing proposal is shown without a reload', verify: 'Read: README.md' }], proposedAt: new Date().toISOString(), client: 'another-process' });
    const file = path.join(await gateStateFolder(folder()), 'pending-proposals.json');
    try {
      let row: { text: string } | undefined;
      for (let tries = 0; !row && tries < 40; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        row = (await api.iscTable.tables.shown(runId)).lock?.proposals.find((p) => p.id === waiting.id);
        // A file watcher can start after the first write on a loaded machine: the file is written again, as the next proposal would.
        if (!row && tries === 10) fs.writeFileSync(file, fs.readFileSync(file, 'utf8'));
      }
      assert.ok(row, 'the open table never showed the proposal');
      assert.match(row.text, /from the MCP client "another-process"/);
    } finally {
      api.iscTable.tables.close(runId);
      await removePendingProposal(folder(), waiting.id);
    }
  });

  describe('Lock Criteria with no PRD named: a lock is per PRD', () => {
    const VIEWED = '.ideal-state/prds/PRD-20261127-lock-in-view.md';
    const viewedText = TEXT.replace('id: PRD-20261126-lock-editor', 'id: PRD-20261127-lock-in-view')
      .replace(/^- \[ \] ISC-LOCK-1:.*$/m, '- [ ] ISC-VIEW-1: The viewed PRD is locked alone | Verify: Read: src/greet.js')
      .replace(LINE_2, '- [ ] ISC-VIEW-2: The greeting reads warmly | Verify: Custom');
    const lockNoArgument = () => vscode.commands.executeCommand<Acted>('idealState.lockCriteria');
    const lockedNow = async () => {
      const read = await readLock(folder(), 'lock');
      return read.ok && read.record ? read.record.prds.map((p) => p.path) : [];
    };

    after(async () => {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(path.join(folder(), VIEWED), { force: true });
    });

    it('locks the PRD open in the editor, alone: one modal listing only its criteria, naming the CRITICAL one the gate cannot decide', async function () {
      this.timeout(60_000);
      fs.writeFileSync(path.join(folder(), VIEWED), viewedText);
      const before = await lockedNow();
      await vscode.window.showTextDocument(vscode.Uri.file(path.join(folder(), VIEWED)));
      answer('Lock');
      const result = await lockNoArgument();
      assert.equal(result.ok, true, result.message);
      const questions = asked.filter((q) => q.kind !== 'offer');
      assert.deepEqual(questions.map((q) => q.kind), ['lock'], 'no pick: the PRD in view is the one; one modal');
      assert.match(questions[0]!.message, /^Lock 2 criteria of \.ideal-state\/prds\/PRD-20261127-lock-in-view\.md\?/);
      const ids = [...questions[0]!.detail.matchAll(/\bISC-[A-Z]+-\d+\b/g)].map((m) => m[0]);
      assert.deepEqual([...new Set(ids)], ['ISC-VIEW-1', 'ISC-VIEW-2'], questions[0]!.detail);
      assert.match(questions[0]!.detail, /ISC-VIEW-2: Custom: the done gate verifies outside the editor, where no model judges Custom criteria\. To fix: make it a command or a Grep, or lower its priority\./);
      assert.deepEqual((await lockedNow()).filter((p) => !before.includes(p)), [VIEWED], 'only the viewed PRD was added to the lock');
    });

    it('with no PRD in view, asks which in a pick of one PRD (newest first, with counts and status), then one modal for that PRD only', async function () {
      this.timeout(60_000);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      const before = await lockedNow();
      const GREETING = '.ideal-state/prds/PRD-20261121-greeting.md';
      api.lock!.dialogs.answerWith((q) => (asked.push(q), q.kind === 'pick' ? GREETING : undefined));
      const result = await lockNoArgument();
      assert.equal(result.ok, false, 'the modal was closed: nothing locked');
      const [pick, modal, ...more] = asked.filter((q) => q.kind !== 'offer');
      assert.equal(pick?.kind, 'pick');
      assert.deepEqual(more, []);
      const newestFirst = [...pick!.choices].sort((a, b) => fs.statSync(path.join(folder(), b)).mtimeMs - fs.statSync(path.join(folder(), a)).mtimeMs);
      assert.deepEqual(pick!.choices, newestFirst);
      assert.ok(pick!.choices.includes(GREETING) && pick!.choices.includes(PRD), pick!.choices.join(', '));
      assert.match(pick!.items!.find((i) => i.relative === GREETING)!.description, /^\d+ criteria · status: CRITERIA_DEFINED$/);
      assert.equal(modal?.kind, 'lock');
      assert.match(modal!.message, /^Lock \d+ criteria of \.ideal-state\/prds\/PRD-20261121-greeting\.md\?/);
      assert.match(modal!.detail, /ISC-GREET-001: \[CRITICAL\]/);
      assert.doesNotMatch(modal!.detail, /ISC-(?:LOCK|VIEW|DEMO)-/, 'no criterion of another PRD');
      assert.deepEqual(await lockedNow(), before);
    });

    it("with a run's ISC table in focus, locks that run's PRD: one modal, no pick", async function () {
      this.timeout(60_000);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.writeFileSync(path.join(folder(), VIEWED), viewedText);
      const runId = await storedRun('inview', 'Integration: the table in view', VIEWED);
      api.iscTable.tables.open(runId);
      await api.iscTable.tables.shown(runId);
      answer(undefined);
      const result = await lockNoArgument();
      assert.equal(result.ok, false, 'the modal was closed: nothing locked');
      const questions = asked.filter((q) => q.kind !== 'offer');
      assert.deepEqual(questions.map((q) => q.kind), ['lock'], 'no pick: the table in view names the PRD');
      assert.match(questions[0]!.message, /^Lock 2 criteria of \.ideal-state\/prds\/PRD-20261127-lock-in-view\.md\?/);
    });
  });
});
