import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readStopPayload } from '../../../../src/app/gate/hosts';
import { gateStop, stopDeadlineSeconds, type StopInput } from '../../../../src/app/gate/stop';
import type { WatchState } from '../../../../src/app/gate/stop-watch';
import { claudeCode } from '../../../../src/app/gate/hosts/claude-code';
import { gateEvents } from '../../../../src/app/notify/gate-events';

const PRD = [
  '---',
  'prd: true',
  'id: PRD-20261129-stop',
  'status: IN_PROGRESS',
  'effort_level: INSTANT',
  '---',
  '',
  '# Stop fixture',
  '',
  '## Problem Space',
  'The agent must write a changelog before it may say it is done.',
  '',
  '## Ideal State Criteria',
  '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md',
  '',
  '## LOG',
  '',
].join('\n');

function watchState(): WatchState {
  return { before: 0, maxBlocks: 3, verifying: '', pending: new Map(), notes: [] };
}

function input(workspace: string, stdin: string, more: Partial<StopInput> = {}): StopInput {
  return {
    stdin,
    prompt: false,
    workspace,
    userLevel: false,
    maxBlocks: 3,
    timeoutSeconds: 30,
    yes: false,
    noLog: false,
    store: false,
    env: { IDEAL_STATE_STATE_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-stop-state-')), PATH: process.env.PATH ?? '' },
    processCwd: workspace,
    selfCommand: 'ideal-state',
    ...more,
  };
}

describe('the gate stop as one app function: payload in, answer out', () => {
  it('reads the payload with the host\'s own zod schema: a field of the wrong type is named, not taken as absent', () => {
    const wrong = readStopPayload('claude-code', JSON.stringify({ hook_event_name: 'Stop', session_id: 's', stop_hook_active: 'true' }));
    assert.equal(wrong.ok, false);
    assert.match(!wrong.ok ? wrong.message : '', /not what Claude Code sends \(stop_hook_active: /);
    const noEvent = readStopPayload('claude-code', JSON.stringify({ session_id: 's' }));
    assert.match(!noEvent.ok ? noEvent.message : '', /hook_event_name/);
    // Unknown keys pass (the schemas are loose), as hosts add fields.
    const ok = readStopPayload('claude-code', JSON.stringify({ hook_event_name: 'Stop', session_id: 's', stop_hook_active: true, something_new: 1 }));
    assert.deepEqual(ok.ok && ok.request, { host: 'claude-code', event: 'Stop', sessionKey: 'claude-code:s:', stopHookActive: true });
    // Kiro sends nothing at all.
    assert.equal(readStopPayload('kiro', '').ok, true);
  });

  it('an unreadable payload is exit 2 with the reason, and no answer in any host\'s format', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-stop-'));
    const said: string[] = [];
    const out = await gateStop(input(dir, '{"hook_event_name": 1}', { host: 'claude-code' }), { warn: (s) => said.push(s), watch: watchState(), rearm: () => undefined });
    assert.deepEqual(out, { kind: 'exit', code: 2 });
    assert.match(said.join('\n'), /not what Claude Code sends \(hook_event_name: /);
  });

  it('blocks a failing stop in the host\'s format, counts it, writes the LOG entry, then lets the passing stop through', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-stop-'));
    fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
    const prd = path.join(dir, '.ideal-state', 'prds', 'PRD-20261129-stop.md');
    fs.writeFileSync(prd, PRD);
    const stdin = JSON.stringify({ hook_event_name: 'Stop', session_id: 'one', stop_hook_active: false, cwd: dir });
    const base = input(dir, stdin);
    const watch = watchState();
    let rearmed: string | undefined;
    const first = await gateStop(base, { warn: () => undefined, watch, rearm: (a) => (rearmed = a?.id) });
    assert.equal(rearmed, 'claude-code', 'the host\'s deadline applies once it is known');
    assert.equal(first.kind, 'answer');
    const answer = first.kind === 'answer' ? JSON.parse(first.answer.stdout!) : {};
    assert.equal(answer.decision, 'block');
    assert.match(answer.reason, /ISC-1/);
    assert.match(answer.reason, /ideal-state gate blocked --workspace/, 'the honest way out names this gate\'s own command');
    assert.match(fs.readFileSync(prd, 'utf8'), /ideal-state gate \(Claude Code Stop, .*\), which blocked the stop \(1 of 3\)/);

    fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), '# Changes\n');
    const again = await gateStop({ ...base, stdin: JSON.stringify({ hook_event_name: 'Stop', session_id: 'one', stop_hook_active: true, cwd: dir }) }, { warn: () => undefined, watch: watchState(), rearm: () => undefined });
    assert.equal(again.kind, 'answer');
    const passed = again.kind === 'answer' ? JSON.parse(again.answer.stdout!) : {};
    assert.equal(passed.decision, undefined, 'the stop goes through');
    assert.match(passed.systemMessage, /1 of 1 criteria pass/);
    const log = fs.readFileSync(prd, 'utf8');
    assert.match(log, /which let the stop through/);
    assert.doesNotMatch(log, /blocked the stop/, 'one LOG entry per session: the latest verdict replaces the earlier one');
  });

  it('a prompt hook records the baseline and answers nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-stop-'));
    const out = await gateStop(input(dir, JSON.stringify({ hook_event_name: 'UserPromptSubmit', session_id: 'p', prompt: 'hello' })), { warn: () => undefined, watch: watchState(), rearm: () => undefined });
    assert.deepEqual(out, { kind: 'exit', code: 0 });
  });

  it('let through at the block limit when the deadline comes first: the answer is not delayed, and gate.released is settled for after it', async function () {
    this.timeout(30_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-stop-'));
    fs.mkdirSync(path.join(dir, '.ideal-state', 'prds'), { recursive: true });
    fs.writeFileSync(path.join(dir, '.ideal-state', 'prds', 'PRD-20261129-slow.md'), PRD.replace(/- \[ \] ISC-1:.*/, '- [ ] ISC-1: The slow suite passes | Verify: CLI: sleep 20\n- [ ] ISC-2: The slower suite passes | Verify: CLI: sleep 21'));
    const stdin = JSON.stringify({ hook_event_name: 'Stop', session_id: 'late', stop_hook_active: true, cwd: dir });
    const late = (maxBlocks: number) => gateStop(input(dir, stdin, { host: 'claude-code', yes: true, deadlineSeconds: 4, maxBlocks }), { warn: () => undefined, watch: watchState(), rearm: () => undefined });

    const released = await late(0);
    assert.equal(released.kind, 'answer');
    if (released.kind !== 'answer') return;
    assert.equal(JSON.parse(released.answer.stdout!).decision, undefined, 'the stop goes through, unverified');
    const settled = released.settled;
    assert.ok(settled, 'settled for the notification sent after the answer');
    assert.equal(settled.unverified?.prd, '.ideal-state/prds/PRD-20261129-slow.md');
    assert.ok(settled.unverified?.ids.includes('ISC-2'), `ISC-2 was still running: ${JSON.stringify(settled.unverified)}`);
    const events = gateEvents(settled.checks, settled.heldBy, settled.verdict, settled);
    assert.deepEqual(events.map((e) => e.event), ['gate.released']);
    const data = events[0]!.data as { why: string; summary: string; prds: { prd: string; failing: { id: string; outcome: string }[] }[] };
    assert.equal(data.why, 'block-limit');
    assert.match(data.summary, /verification did not finish in time/);
    assert.ok(data.prds[0]!.failing.some((f) => f.id === 'ISC-2' && f.outcome === 'UNVERIFIED'));

    // Blocked at the deadline (the limit not reached): nothing is released, nothing to tell.
    const blocked = await late(3);
    assert.equal(blocked.kind === 'answer' && JSON.parse(blocked.answer.stdout!).decision, 'block');
    assert.equal(blocked.kind === 'answer' ? blocked.settled : 'no answer', undefined);
  });

  it('the deadline is --deadline when given, else the host\'s own', () => {
    assert.equal(stopDeadlineSeconds(30, claudeCode), 30);
    assert.equal(stopDeadlineSeconds(undefined, claudeCode), claudeCode.defaultDeadlineSeconds);
    assert.equal(stopDeadlineSeconds(0, undefined), 600);
  });
});
