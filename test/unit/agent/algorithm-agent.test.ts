import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApprovalPolicy, denyAll, type ApprovalRequest, type Approver } from '../../../src/agent/approvals';
import { undoPlan, undoRunChanges } from '../../../src/agent/checkpoint';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import { AgentToolbox } from '../../../src/agent/tools';
import { confinePath } from '../../../src/agent/workspace';
import type { FileCheckpoint } from '../../../src/algorithm/ports';
import { AGENT_TOOLS } from '../../../src/algorithm/capabilities';
import { harness, managerSteps, markerCriteria, tempDir, type Step } from '../support/algorithm-helpers';

const signal = new AbortController().signal;

function toolbox(root: string, approver: Approver = denyAll, settings: { autoApproveEdits?: boolean; allowCommands?: string[]; trusted?: boolean } = {}) {
  const checkpoints: FileCheckpoint[] = [];
  const asked: ApprovalRequest[] = [];
  const recording: Approver = { ask: async (r, s) => (asked.push(r), approver.ask(r, s)) };
  const box = new AgentToolbox(new NodeWorkspace(root), new ApprovalPolicy(recording, { trusted: settings.trusted ?? true, ...settings }), { before: (p, c) => checkpoints.push({ path: p, ...(c !== undefined ? { before: c } : {}), at: new Date().toISOString() }) }, [...AGENT_TOOLS], 10_000);
  return { box, checkpoints, asked };
}
const call = (name: string, args: unknown) => ({ id: `c-${name}`, name, arguments: args });

describe('agent: workspace tools, approvals and checkpoints', () => {
  it('refuses paths that leave the workspace: "..", absolute, drive letters, symlinks pointing out', async () => {
    const root = tempDir('agent');
    const outside = tempDir('outside');
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET');
    fs.symlinkSync(outside, path.join(root, 'link'));
    const { box } = toolbox(root, { ask: async () => 'approve' });
    for (const p of ['../outside/secret.txt', '/etc/passwd', 'C:\\Windows\\win.ini', 'a/../../x', 'link/secret.txt', '~/x']) {
      const read = await box.call(call('read_file', { path: p }), signal);
      assert.equal(read.isError, true, p);
      assert.match(read.content, /refused/, p);
      assert.doesNotMatch(read.content, /TOP-SECRET/);
      const write = await box.call(call('create_file', { path: p, text: 'x' }), signal);
      assert.equal(write.isError, true, p);
    }
    assert.equal(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8'), 'TOP-SECRET');
    assert.deepEqual(fs.readdirSync(outside), ['secret.txt']);
    assert.throws(() => confinePath('x/\0y'), /NUL/);
    assert.equal(confinePath('./src//a.ts'), 'src/a.ts');
  });

  it('asks before edits and commands: Deny leaves the file alone, Always stops asking for the run', async () => {
    const root = tempDir('agent');
    fs.writeFileSync(path.join(root, 'a.txt'), 'one\n');
    const answers: ('deny' | 'always')[] = ['deny', 'always'];
    const { box, asked } = toolbox(root, { ask: async () => answers.shift()! });
    const denied = await box.call(call('edit_file', { path: 'a.txt', find: 'one', replace: 'two' }), signal);
    assert.equal(denied.isError, true);
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'one\n');
    assert.match(asked[0]!.detail, /-one\n\+two/);
    await box.call(call('edit_file', { path: 'a.txt', find: 'one', replace: 'two' }), signal);
    await box.call(call('create_file', { path: 'b/c.txt', text: 'new\n' }), signal);
    assert.equal(asked.length, 2, 'Always: the third change was not asked');
    assert.equal(fs.readFileSync(path.join(root, 'a.txt'), 'utf8'), 'two\n');
    assert.equal(fs.readFileSync(path.join(root, 'b/c.txt'), 'utf8'), 'new\n');
    assert.deepEqual(box.denials, ['edit: a.txt']);
    assert.deepEqual(box.edits.map((e) => [e.path, e.kind]), [['a.txt', 'modify'], ['b/c.txt', 'create']]);
  });

  it('runs allow-listed commands without asking, denies others without a person, and nothing in an untrusted workspace', async () => {
    const root = tempDir('agent');
    const { box, asked } = toolbox(root, denyAll, { allowCommands: ['node -p *'] });
    const ok = await box.call(call('run_command', { command: 'node -p 41+1' }), signal);
    assert.equal(ok.isError, false, ok.content);
    assert.match(ok.content, /exit 0\n42/);
    const no = await box.call(call('run_command', { command: 'touch made.txt' }), signal);
    assert.equal(no.isError, true);
    assert.equal(fs.existsSync(path.join(root, 'made.txt')), false);
    // The pattern's `*` cannot smuggle in a second command after a shell operator.
    const smuggled = await box.call(call('run_command', { command: 'node -p 1 && touch smuggled.txt' }), signal);
    assert.equal(smuggled.isError, true);
    assert.equal(fs.existsSync(path.join(root, 'smuggled.txt')), false);
    assert.equal(asked.length, 2);
    const untrusted = toolbox(root, { ask: async () => 'approve' }, { trusted: false, autoApproveEdits: true, allowCommands: ['*'] });
    assert.equal((await untrusted.box.call(call('create_file', { path: 'x.txt', text: 'x' }), signal)).isError, true);
    assert.equal((await untrusted.box.call(call('run_command', { command: 'node -v' }), signal)).isError, true);
    assert.equal(untrusted.asked.length, 0);
    assert.equal(fs.existsSync(path.join(root, 'x.txt')), false);
  });

  it('checkpoints each file before its first change, so undo restores it exactly (and removes created files)', async () => {
    const root = tempDir('agent');
    const original = 'line 1\r\nline 2\r\n\u00e9t\u00e9 \u2603\n';
    fs.writeFileSync(path.join(root, 'keep.txt'), original);
    const { box, checkpoints } = toolbox(root, denyAll, { autoApproveEdits: true });
    await box.call(call('edit_file', { path: 'keep.txt', find: 'line 1', replace: 'LINE ONE' }), signal);
    await box.call(call('edit_file', { path: 'keep.txt', find: 'line 2', replace: 'LINE TWO' }), signal);
    await box.call(call('create_file', { path: 'new/dir/made.txt', text: 'made' }), signal);
    // The run's storage keeps only the first checkpoint of a path (StoreRunStorage); here: first wins.
    const first = checkpoints.filter((c, i) => checkpoints.findIndex((x) => x.path === c.path) === i);
    assert.deepEqual(undoPlan(first).map((s) => [s.path, s.action]), [['keep.txt', 'restore'], ['new/dir/made.txt', 'delete']]);
    await undoRunChanges(first, new NodeWorkspace(root));
    assert.equal(fs.readFileSync(path.join(root, 'keep.txt'), 'utf8'), original);
    assert.equal(fs.existsSync(path.join(root, 'new/dir/made.txt')), false);
  });

  it('a specialist trying to escape the workspace gets refusals, and the run does not pass', async function () {
    this.timeout(30_000);
    const outside = tempDir('outside');
    const steps: Step[] = [
      ...managerSteps(markerCriteria(1)),
      { toolCalls: [{ name: 'read_file', arguments: { path: '../../../../etc/passwd' } }, { name: 'create_file', arguments: { path: path.join(outside, 'out.txt'), text: 'marker-1\n' } }] },
      { text: 'done' },
    ];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      assert.equal(result.state, 'BUDGET_EXHAUSTED');
      assert.deepEqual(fs.readdirSync(outside), []);
      const tools = h.model.requests[5]!.messages.filter((m) => m.role === 'tool');
      assert.equal(tools.length, 2);
      for (const t of tools) assert.match(t.content, /refused: .*(\.\.|absolute)/);
      assert.ok(h.events.filter((e) => e.kind === 'tool').every((e) => /refused or failed/.test(e.message)));
    } finally {
      h.close();
    }
  });
});
