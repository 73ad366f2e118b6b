import { CancelledError } from '../../../../src/model/errors';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { LlmProviderError, LlmTimeoutError, ScriptError } from '../../../../src/llm/errors';
import { ScriptedModel } from '../../../../src/llm/providers/scripted';
import type { StreamPart } from '../../../../src/llm/types';
import { REPO_ROOT } from '../../support/repo-root';

const FIXTURE = path.resolve(REPO_ROOT, 'test/unit/fixtures/llm/demo.yaml');
const tools = [{ name: 'read_file', description: 'Reads a file', parameters: z.object({ path: z.string() }) }];
const Criteria = z.object({ criteria: z.array(z.string().min(1)).min(1) });
const user = (content: string) => [{ role: 'user' as const, content }];

function errorWith(pattern: RegExp, step?: number) {
  return (e: unknown) => {
    assert.ok(e instanceof ScriptError, String(e));
    assert.match(e.message, pattern);
    if (step !== undefined) assert.equal(e.step, step);
    return true;
  };
}

describe('llm scripted provider', () => {
  it('replays a YAML script in order: tool calls, structured objects, text and usage', async () => {
    const model = ScriptedModel.fromText(FIXTURE, fs.readFileSync(FIXTURE, 'utf8'));
    assert.equal(model.displayName, 'scripted: demo');
    assert.equal(model.kind, 'scripted');
    const first = await model.chat({ messages: user('go'), tools });
    assert.equal(first.text, 'Let me read the readme.');
    assert.deepEqual(first.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }]);
    assert.equal(first.stopReason, 'tool-calls');
    assert.deepEqual(first.usage, { inputTokens: 120, outputTokens: 18 });
    const second = await model.chat({ messages: user('criteria'), responseFormat: { name: 'criteria', schema: Criteria } });
    assert.deepEqual(JSON.parse(second.text), { criteria: ['Login form rejects empty password with inline error'] });
    const third = await model.chat({ messages: user('done?') });
    assert.equal(third.text, 'All criteria hold.');
    assert.equal(third.usage.estimated, true);
    assert.equal(model.stepsLeft, 0);
  });

  it('names the file and step when the script runs out', async () => {
    const model = ScriptedModel.fromText('short.yaml', 'steps:\n  - text: only one\n');
    await model.chat({ messages: user('a') });
    await assert.rejects(model.chat({ messages: user('b') }), errorWith(/^short\.yaml step 2: the script ran out: it has 1 steps/, 2));
  });

  it('names the file and step when an object does not match the requested schema', async () => {
    const model = ScriptedModel.fromText('bad.yaml', 'steps:\n  - text: hi\n  - object: { criteria: [] }\n');
    await model.chat({ messages: user('a') });
    await assert.rejects(model.chat({ messages: user('b'), responseFormat: { name: 'criteria', schema: Criteria } }), errorWith(/^bad\.yaml step 2: the object does not match the requested schema "criteria": criteria:/, 2));
  });

  it('refuses tool calls to tools the call does not offer, or with arguments off their schema', async () => {
    const unknown = ScriptedModel.fromText('t.yaml', 'steps:\n  - toolCalls: [{ name: delete_all }]\n');
    await assert.rejects(unknown.chat({ messages: user('a'), tools }), errorWith(/step 1: the step calls tool "delete_all", which the call does not offer \(read_file\)/));
    const badArgs = ScriptedModel.fromText('t.yaml', 'steps:\n  - toolCalls: [{ name: read_file, arguments: { path: 3 } }]\n');
    await assert.rejects(badArgs.chat({ messages: user('a'), tools }), errorWith(/arguments of tool "read_file" do not match its schema: path:/));
    const unchecked = ScriptedModel.fromText('t.yaml', 'steps:\n  - toolCalls: [{ name: read_file, arguments: { path: 3 } }]\n    unchecked: true\n');
    assert.deepEqual((await unchecked.chat({ messages: user('a'), tools })).toolCalls[0]!.arguments, { path: 3 });
  });

  it('refuses an object step when no structured output was asked for, and tool calls when it was', async () => {
    const object = ScriptedModel.fromText('o.yaml', 'steps:\n  - object: { a: 1 }\n');
    await assert.rejects(object.chat({ messages: user('a') }), errorWith(/step 1: the step gives an object but the call asks for no structured output/));
    const calls = ScriptedModel.fromText('c.yaml', 'steps:\n  - toolCalls: [{ name: read_file, arguments: { path: x } }]\n');
    await assert.rejects(calls.chat({ messages: user('a'), tools, responseFormat: { name: 'criteria', schema: Criteria } }), errorWith(/asks for structured output "criteria" but the step gives tool calls/));
  });

  it('reports a malformed script with file and line', () => {
    assert.throws(() => ScriptedModel.fromText('m.yaml', 'steps:\n  - text: a\n    object: { b: 1 }\n'), errorWith(/^m\.yaml: m\.yaml:2:5: steps\.0: a step has exactly one of/));
    assert.throws(() => ScriptedModel.fromText('e.yaml', 'steps: []\n'), errorWith(/at least one step/));
  });

  it('simulates failures as the same typed errors real providers raise', async () => {
    const model = ScriptedModel.fromText('f.yaml', 'steps:\n  - error: { kind: rate-limit }\n  - error: { kind: timeout }\n');
    await assert.rejects(model.chat({ messages: user('a') }), (e: unknown) => e instanceof LlmProviderError && e.failure === 'rate-limit' && e.status === 429);
    await assert.rejects(model.chat({ messages: user('a'), timeoutMs: 5 }), LlmTimeoutError);
  });

  it('streams its text and tool calls as parts, and is cancellable while it waits', async () => {
    const model = ScriptedModel.fromText('s.yaml', 'steps:\n  - text: two words\n  - text: late\n    delayMs: 10000\n');
    const parts: StreamPart[] = [];
    await model.chat({ messages: user('a'), onPart: (p) => parts.push(p) });
    assert.deepEqual(parts, [{ type: 'text', text: 'two ' }, { type: 'text', text: 'words' }]);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    await assert.rejects(model.chat({ messages: user('b'), signal: controller.signal }), CancelledError);
    assert.ok(Date.now() - started < 5000);
  });
});
