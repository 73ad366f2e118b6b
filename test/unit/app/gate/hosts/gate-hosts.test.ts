import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answerFor, HOST_ADAPTERS, readStopPayload, type GateHost, type StopRequest } from '../../../../../src/app/gate/hosts';
import { REPO_ROOT } from '../../../support/repo-root';

const FIXTURES = path.resolve(REPO_ROOT, 'test/unit/fixtures/gate');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

function request(text: string, host?: string): StopRequest {
  const r = readStopPayload(host, text);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.request;
}

const block = { kind: 'block' as const, reason: 'ISC-1 FAIL: CHANGELOG.md does not exist', summary: 'Ideal State: not done.' };
const note = { kind: 'allow' as const, note: 'stopped with ISC-1 not done' };

function answers(host: GateHost, event = 'Stop') {
  const r: StopRequest = { host, event, sessionKey: 'k' };
  return [answerFor(r, block), answerFor(r, note), answerFor(r, { kind: 'allow' })];
}

describe('gate: host payloads and answers (pure)', () => {
  it('tells each documented payload’s host, session and loop flag from its shape', () => {
    assert.deepEqual(request(fixture('claude-code-stop.json')), { host: 'claude-code', event: 'Stop', sessionKey: 'claude-code:abc123:', cwd: '/Users/...', stopHookActive: true });
    assert.deepEqual(request(fixture('claude-code-subagent-stop.json')), { host: 'claude-code', event: 'SubagentStop', sessionKey: 'claude-code:abc123:def456', cwd: '/Users/...', stopHookActive: false });
    assert.deepEqual(request(fixture('vscode-stop.json')), { host: 'vscode', event: 'Stop', sessionKey: 'vscode:session-identifier:', cwd: '/path/to/workspace', stopHookActive: false });
    assert.deepEqual(request(fixture('cline-task-complete.json')), { host: 'cline', event: 'TaskComplete', sessionKey: 'cline:1736035100000', cwd: '/Users/me/project' });
    assert.deepEqual(readStopPayload(undefined, ''), { ok: true, request: { host: 'kiro', event: 'agentStop', sessionKey: 'kiro:workspace' } });
    assert.deepEqual(readStopPayload('claude-code', '[1]'), { ok: false, message: 'the hook payload on stdin is not a JSON object' });
  });

  it('tells the payloads the real binaries sent (test/hosts): Codex’s turn_id, Gemini’s AfterAgent, Copilot CLI’s camelCase agentStop, Cursor’s stop, the opencode plugin’s session.idle', () => {
    // Codex 0.171.0, schema stop.command.input.
    assert.deepEqual(request(JSON.stringify({ session_id: 's1', turn_id: 't1', transcript_path: null, cwd: '/w', hook_event_name: 'Stop', model: 'gpt-fake', permission_mode: 'bypassPermissions', stop_hook_active: false, last_assistant_message: 'done' })), { host: 'codex', event: 'Stop', sessionKey: 'codex:s1', cwd: '/w', stopHookActive: false });
    // Gemini CLI 0.61.0: stop_hook_active is not trusted (false again after a tool-using turn).
    assert.deepEqual(request(JSON.stringify({ session_id: 'g1', transcript_path: '', cwd: '/w', hook_event_name: 'AfterAgent', timestamp: '2026-11-26T00:00:00Z', prompt: 'p', prompt_response: 'done', stop_hook_active: false })), { host: 'gemini', event: 'AfterAgent', sessionKey: 'gemini:g1', cwd: '/w' });
    // Copilot CLI 1.0.102: camelCase sessionId, no event name.
    assert.deepEqual(request(JSON.stringify({ sessionId: 'c1', timestamp: 1764115200000, cwd: '/w' })), { host: 'copilot', event: 'agentStop', sessionKey: 'copilot:c1', cwd: '/w' });
    assert.deepEqual(request(JSON.stringify({ conversation_id: 'cv', generation_id: 'g', hook_event_name: 'stop', status: 'completed', loop_count: 1, workspace_roots: ['/w'] })), { host: 'cursor', event: 'stop', sessionKey: 'cursor:cv', cwd: '/w', stopHookActive: true });
    assert.deepEqual(request(JSON.stringify({ hook_event_name: 'session.idle', session_id: 'o1', cwd: '/w' })), { host: 'opencode', event: 'session.idle', sessionKey: 'opencode:o1', cwd: '/w' });
    // Qwen Code sends Claude Code's payload: only --host qwen tells it.
    assert.equal(request(JSON.stringify({ session_id: 'q', hook_event_name: 'Stop', cwd: '/w', stop_hook_active: false }), 'qwen').host, 'qwen');
    assert.deepEqual(readStopPayload(undefined, '{"foo": 1}'), { ok: false, message: `cannot tell which agent host sent this payload (keys: foo); pass --host ${HOST_ADAPTERS.map((h) => h.id).join('|')}` });
  });

  it('answers a block and a let-through with a warning in each host’s own format', () => {
    const claude = [{ exitCode: 0, stdout: '{"decision":"block","reason":"ISC-1 FAIL: CHANGELOG.md does not exist"}' }, { exitCode: 0, stdout: '{"systemMessage":"stopped with ISC-1 not done"}' }, { exitCode: 0 }];
    for (const host of ['claude-code', 'codex', 'gemini', 'qwen', 'augment']) assert.deepEqual(answers(host), claude, host);
    assert.deepEqual(answers('vscode'), [
      { exitCode: 0, stdout: '{"hookSpecificOutput":{"hookEventName":"Stop","decision":"block","reason":"ISC-1 FAIL: CHANGELOG.md does not exist"}}' },
      { exitCode: 0, stdout: '{"systemMessage":"stopped with ISC-1 not done"}' },
      { exitCode: 0 },
    ]);
    assert.deepEqual(answers('vscode', 'SubagentStop')[0], { exitCode: 0, stdout: '{"decision":"block","reason":"ISC-1 FAIL: CHANGELOG.md does not exist"}' });
    // Copilot CLI reads the top-level decision; VS Code the nested one: both, in one answer.
    assert.deepEqual(JSON.parse(answers('copilot', 'agentStop')[0]!.stdout!), { decision: 'block', reason: block.reason, hookSpecificOutput: { hookEventName: 'Stop', decision: 'block', reason: block.reason } });
    assert.deepEqual(answers('cursor', 'stop'), [{ exitCode: 0, stdout: `{"followup_message":"${block.reason}"}` }, { exitCode: 0, stdout: '{}' }, { exitCode: 0, stdout: '{}' }]);
    assert.deepEqual(answers('kiro'), [
      { exitCode: 1, stderr: 'ISC-1 FAIL: CHANGELOG.md does not exist' },
      { exitCode: 0, stdout: 'stopped with ISC-1 not done' },
      { exitCode: 0, stdout: 'Ideal State: every CRITICAL criterion passes.' },
    ]);
    // Cline's TaskComplete runs after the task completed: no answer can hold it, so none claims to.
    assert.deepEqual(answers('cline', 'TaskComplete'), [
      { exitCode: 0, stdout: '{"cancel":false,"contextModification":"ISC-1 FAIL: CHANGELOG.md does not exist"}' },
      { exitCode: 0, stdout: '{"cancel":false,"contextModification":"stopped with ISC-1 not done"}' },
      { exitCode: 0, stdout: '{"cancel":false}' },
    ]);
  });

  it('every adapter names its config file, timeout unit, warning channel and what the host does with a block; the payload schemas accept what the hosts send', () => {
    for (const h of HOST_ADAPTERS) {
      assert.ok(h.install.kind === 'none' ? h.install.why.length > 20 : h.install.file.length > 0, h.id);
      assert.ok(['seconds', 'milliseconds'].includes(h.timeoutUnit), h.id);
      assert.ok(h.warningChannel.length > 0 && h.hostWill('block').length > 0, h.id);
    }
    assert.match(HOST_ADAPTERS.find((h) => h.id === 'cline')!.hostWill('block'), /nothing was held/);
    const codex = HOST_ADAPTERS.find((h) => h.id === 'codex')!;
    assert.equal(codex.payload().safeParse({ hook_event_name: 'Stop', turn_id: 't', extra: 1 }).success, true);
    assert.equal(codex.payload().safeParse({ turn_id: 't' }).success, false);
  });
});
