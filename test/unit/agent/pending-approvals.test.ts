import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApprovalPolicy, type ApprovalRequest, type Approver } from '../../../src/agent/approvals';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import { PendingApprovals, type ApprovalDecision } from '../../../src/agent/pending-approvals';
import { AgentToolbox } from '../../../src/agent/tools';
import { AGENT_TOOLS } from '../../../src/algorithm/capabilities';
import { tempDir } from '../support/algorithm-helpers';

const edit = (file: string): ApprovalRequest => ({ kind: 'edit', title: `Edit ${file}`, detail: `--- ${file}\n+++ ${file}\n+x`, path: file, proposed: 'x\n' });
const command = (line: string): ApprovalRequest => ({ kind: 'command', title: 'Run a command', detail: line, command: line, cwd: '/w' });
const live = () => new AbortController().signal;
/** The editor's approver in miniature: every request waits in the registry for a decision. */
const waitingIn = (registry: PendingApprovals, runId: string): Approver => ({ ask: (request, signal) => registry.add(runId, request, signal).answer });
const call = (name: string, args: unknown) => ({ id: `c-${name}`, name, arguments: args });
/** Lets the toolbox reach its approval (it reads the file first). */
async function until<T>(get: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = get();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 5));
  }
  throw new Error('nothing became pending');
}

describe('pending approvals: one registry, any surface decides', () => {
  it('keeps a request as state (id, run, kind, path or command, summary, time) until the first decision, which wins', async () => {
    const registry = new PendingApprovals(() => new Date('2026-11-22T05:00:00.000Z'));
    const changes: string[] = [];
    const decisions: ApprovalDecision[] = [];
    registry.onDidChange((runId) => changes.push(runId));
    registry.onDidDecide((d) => decisions.push(d));
    const e = registry.add('run-A', edit('src/a.js'), live());
    const c = registry.add('run-A', command('npm test'), live());
    assert.deepEqual(
      registry.list('run-A').map((a) => [a.kind, a.path ?? a.command, a.cwd, a.createdAt]),
      [['edit', 'src/a.js', undefined, '2026-11-22T05:00:00.000Z'], ['command', 'npm test', '/w', '2026-11-22T05:00:00.000Z']],
    );
    assert.equal(registry.get(e.approval.id)?.proposed, 'x\n');
    assert.notEqual(e.approval.id, c.approval.id);
    assert.deepEqual(changes, ['run-A', 'run-A']);

    const first = registry.decide(e.approval.id, 'approve', 'the ISC table');
    const second = registry.decide(e.approval.id, 'deny', 'the notification');
    assert.equal(first.decided, true);
    assert.equal(second.decided, false);
    assert.equal(await e.answer, 'approve');
    assert.deepEqual(decisions.map((d) => [d.approval.id, d.answer, d.via]), [[e.approval.id, 'approve', 'the ISC table']]);
    assert.deepEqual(registry.list('run-A').map((a) => a.id), [c.approval.id]);
    assert.equal(registry.decide('approval-unknown', 'approve', 'a command').decided, false);
    assert.deepEqual(changes, ['run-A', 'run-A', 'run-A']);
  });

  it('denies what a cancelled run left pending (by cancelRun or by its AbortSignal), and only that run', async () => {
    const registry = new PendingApprovals();
    const a1 = registry.add('run-A', edit('a.js'), live());
    const a2 = registry.add('run-A', command('make'), live());
    const b = registry.add('run-B', edit('b.js'), live());
    assert.equal(registry.cancelRun('run-A'), 2);
    assert.deepEqual([await a1.answer, await a2.answer], ['deny', 'deny']);
    assert.deepEqual(registry.list().map((a) => a.runId), ['run-B']);
    assert.equal(registry.decide(a1.approval.id, 'approve', 'the ISC table').decided, false, 'a late approval of a cancelled run changes nothing');

    const controller = new AbortController();
    const c = registry.add('run-C', edit('c.js'), controller.signal);
    controller.abort();
    assert.equal(await c.answer, 'deny');
    assert.deepEqual(registry.list().map((a) => a.runId), ['run-B']);
    const gone = new AbortController();
    gone.abort();
    assert.equal(await registry.add('run-D', edit('d.js'), gone.signal).answer, 'deny', 'a request of an already-cancelled run is denied at once');
    registry.decide(b.approval.id, 'deny', 'the notification');
    assert.equal(await b.answer, 'deny');
  });

  it('tells a late answer why nothing happened: its run was cancelled, or another surface answered first', () => {
    const registry = new PendingApprovals();
    const controller = new AbortController();
    const loopEdit = registry.add('run-L', edit('README.md'), controller.signal);
    const tableEdit = registry.add('run-T', edit('t.js'), live());
    controller.abort();
    registry.decide(tableEdit.approval.id, 'approve', 'the ISC table');
    // The approval notification VS Code cannot close: its Approve clicked after Cancel.
    assert.deepEqual(registry.decide(loopEdit.approval.id, 'approve', 'the notification'), { decided: false, reason: 'its run was cancelled, so nothing was applied' });
    assert.deepEqual(registry.decide(tableEdit.approval.id, 'deny', 'the notification'), { decided: false, reason: 'it was already answered by the ISC table' });
    const cancelled = registry.add('run-C', command('make'), live());
    registry.cancelRun('run-C');
    assert.equal(registry.whyNotPending(cancelled.approval.id), 'its run was cancelled, so nothing was applied');
  });

  it('"Always for this run" also approves the run\'s other pending requests of that kind, not its commands nor other runs', async () => {
    const registry = new PendingApprovals();
    const e1 = registry.add('run-A', edit('a.js'), live());
    const e2 = registry.add('run-A', edit('b.js'), live());
    const cmd = registry.add('run-A', command('npm test'), live());
    const other = registry.add('run-B', edit('c.js'), live());
    registry.decide(e1.approval.id, 'always', 'the ISC table');
    assert.deepEqual([await e1.answer, await e2.answer], ['always', 'approve']);
    assert.deepEqual(registry.list().map((a) => a.id).sort(), [cmd.approval.id, other.approval.id].sort());
  });

  it('an agent edit waits in the registry with its path and whole proposed text; Always for this run stops asking for the rest of the run', async () => {
    const root = tempDir('pending');
    fs.writeFileSync(path.join(root, 'greet.js'), 'export const hi = 1;\n');
    const registry = new PendingApprovals();
    const box = new AgentToolbox(new NodeWorkspace(root), new ApprovalPolicy(waitingIn(registry, 'run-A'), { trusted: true }), { before: () => undefined }, [...AGENT_TOOLS], 10_000);
    const editing = box.call(call('edit_file', { path: 'greet.js', find: 'hi = 1', replace: 'hi = 2' }), live());
    const pending = await until(() => registry.list('run-A')[0]);
    assert.equal(pending.kind, 'edit');
    assert.equal(pending.path, 'greet.js');
    assert.equal(pending.proposed, 'export const hi = 2;\n', 'the whole file as it would be');
    assert.match(pending.summary, /-export const hi = 1;\n\+export const hi = 2;/);
    assert.equal(fs.readFileSync(path.join(root, 'greet.js'), 'utf8'), 'export const hi = 1;\n', 'nothing written before approval');
    registry.decide(pending.id, 'always', 'the ISC table');
    assert.equal((await editing).isError, false);
    assert.equal(fs.readFileSync(path.join(root, 'greet.js'), 'utf8'), 'export const hi = 2;\n');
    // The rest of the run's edits need no one: nothing new waits.
    const created = await box.call(call('create_file', { path: 'bye.js', text: 'bye\n' }), live());
    assert.equal(created.isError, false);
    assert.equal(registry.list().length, 0);
    // A command is still asked, with its exact command line and folder.
    const running = box.call(call('run_command', { command: 'node -e "1"' }), live());
    const asked = await until(() => registry.list('run-A')[0]);
    assert.deepEqual([asked.kind, asked.command, asked.cwd], ['command', 'node -e "1"', root]);
    registry.decide(asked.id, 'deny', 'the notification');
    assert.equal((await running).isError, true);
    assert.deepEqual(box.denials, ['command: node -e "1"']);
  });

  it('a configuration change waits as its own kind, named as one; "Always" approves that change only, never the run\'s other configuration changes', async () => {
    const root = tempDir('pending');
    fs.mkdirSync(path.join(root, '.vscode'));
    fs.writeFileSync(path.join(root, '.vscode/settings.json'), '{}\n');
    const registry = new PendingApprovals();
    // "Always for this run" of edits was given: configuration changes still wait.
    const policy = new ApprovalPolicy(waitingIn(registry, 'run-A'), { trusted: true, autoApproveEdits: true });
    const box = new AgentToolbox(new NodeWorkspace(root), policy, { before: () => undefined }, [...AGENT_TOOLS], 10_000);
    const settings = box.call(call('edit_file', { path: '.vscode/settings.json', find: '{}', replace: '{ "a": 1 }' }), live());
    const pending = await until(() => registry.list('run-A')[0]);
    assert.deepEqual([pending.kind, pending.path, pending.creates, pending.proposed], ['config', '.vscode/settings.json', undefined, '{ "a": 1 }\n']);
    assert.equal(pending.title, 'Change configuration: .vscode/settings.json — this can change what Ideal State or VS Code runs');
    assert.equal(pending.effect, 'this can change what Ideal State or VS Code runs');
    const other = registry.add('run-A', { kind: 'config', title: 'Change configuration: .ideal-state/models.yaml', detail: '+x', path: '.ideal-state/models.yaml', proposed: 'x' }, live());
    const anEdit = registry.add('run-A', edit('a.js'), live());
    registry.decide(pending.id, 'always', 'the ISC table');
    assert.equal((await settings).isError, false);
    assert.equal(fs.readFileSync(path.join(root, '.vscode/settings.json'), 'utf8'), '{ "a": 1 }\n');
    assert.deepEqual(registry.list('run-A').map((a) => a.id), [other.approval.id, anEdit.approval.id], 'the other configuration change and the edit still wait');
    // And the policy did not remember it: the next configuration change is asked again.
    const again = box.call(call('create_file', { path: '.vscode/tasks.json', text: '{}' }), live());
    const next = await until(() => registry.list('run-A').find((a) => a.path === '.vscode/tasks.json'));
    assert.equal(next.kind, 'config');
    registry.decide(next.id, 'deny', 'the notification');
    assert.equal((await again).isError, true);
    assert.equal(fs.existsSync(path.join(root, '.vscode/tasks.json')), false);
    registry.cancelRun('run-A');
  });

  it('a new file is marked as created, with its text as the proposal', async () => {
    const root = tempDir('pending');
    const registry = new PendingApprovals();
    const box = new AgentToolbox(new NodeWorkspace(root), new ApprovalPolicy(waitingIn(registry, 'run-A'), { trusted: true }), { before: () => undefined }, [...AGENT_TOOLS], 10_000);
    const creating = box.call(call('create_file', { path: 'src/new.js', text: 'new\n' }), live());
    const pending = await until(() => registry.list()[0]);
    assert.deepEqual([pending.path, pending.creates, pending.proposed], ['src/new.js', true, 'new\n']);
    registry.cancelRun('run-A');
    assert.equal((await creating).isError, true);
    assert.equal(fs.existsSync(path.join(root, 'src/new.js')), false);
  });
});
