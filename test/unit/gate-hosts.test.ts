import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { answerFor, readStopPayload, type GateHost, type StopRequest } from '../../src/cli/gate-hosts';

const FIXTURES = path.resolve(__dirname, '../../../test/unit/fixtures/gate');
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');

function request(name: string): StopRequest {
  const r = readStopPayload(undefined, fixture(name));
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.request;
}

describe('gate: host payloads and answers (pure)', () => {
  it('tells each documented payload’s host, session and loop flag from its shape', () => {
    assert.deepEqual(request('claude-code-stop.json'), { host: 'claude-code', event: 'Stop', sessionKey: 'claude-code:abc123:', cwd: '/Users/...', stopHookActive: true });
    assert.deepEqual(request('claude-code-subagent-stop.json'), { host: 'claude-code', event: 'SubagentStop', sessionKey: 'claude-code:abc123:def456', cwd: '/Users/...', stopHookActive: false });
    assert.deepEqual(request('vscode-stop.json'), { host: 'vscode', event: 'Stop', sessionKey: 'vscode:session-identifier:', cwd: '/path/to/workspace', stopHookActive: false });
    assert.deepEqual(request('cline-task-complete.json'), { host: 'cline', event: 'TaskComplete', sessionKey: 'cline:1736035100000', cwd: '/Users/me/project' });
    assert.deepEqual(readStopPayload(undefined, ''), { ok: true, request: { host: 'kiro', event: 'agentStop', sessionKey: 'kiro:workspace' } });
    assert.deepEqual(readStopPayload('claude-code', '[1]'), { ok: false, message: 'the hook payload on stdin is not a JSON object' });
  });

  it('answers a block and a let-through with a warning in each host’s own format', () => {
    const block = { kind: 'block' as const, reason: 'ISC-1 FAIL: CHANGELOG.md does not exist', summary: 'Ideal State: not done.' };
    const note = { kind: 'allow' as const, note: 'stopped with ISC-1 not done' };
    const answers = (host: GateHost, event = 'Stop') => {
      const r: StopRequest = { host, event, sessionKey: 'k' };
      return [answerFor(r, block), answerFor(r, note), answerFor(r, { kind: 'allow' })];
    };
    assert.deepEqual(answers('claude-code'), [
      { exitCode: 0, stdout: '{"decision":"block","reason":"ISC-1 FAIL: CHANGELOG.md does not exist"}' },
      { exitCode: 0, stdout: '{"systemMessage":"stopped with ISC-1 not done"}' },
      { exitCode: 0 },
    ]);
    assert.deepEqual(answers('vscode'), [
      { exitCode: 0, stdout: '{"hookSpecificOutput":{"hookEventName":"Stop","decision":"block","reason":"ISC-1 FAIL: CHANGELOG.md does not exist"}}' },
      { exitCode: 0, stdout: '{"systemMessage":"stopped with ISC-1 not done"}' },
      { exitCode: 0 },
    ]);
    assert.deepEqual(answers('vscode', 'SubagentStop')[0], { exitCode: 0, stdout: '{"decision":"block","reason":"ISC-1 FAIL: CHANGELOG.md does not exist"}' });
    assert.deepEqual(answers('kiro'), [
      { exitCode: 1, stderr: 'ISC-1 FAIL: CHANGELOG.md does not exist' },
      { exitCode: 0, stdout: 'stopped with ISC-1 not done' },
      { exitCode: 0, stdout: 'Ideal State: every CRITICAL criterion passes.' },
    ]);
    assert.deepEqual(answers('cline'), [
      { exitCode: 0, stdout: '{"cancel":true,"errorMessage":"Ideal State: not done.","contextModification":"ISC-1 FAIL: CHANGELOG.md does not exist"}' },
      { exitCode: 0, stdout: '{"cancel":false,"contextModification":"stopped with ISC-1 not done"}' },
      { exitCode: 0, stdout: '{"cancel":false}' },
    ]);
  });
});
