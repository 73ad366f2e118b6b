import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { LlmCancelledError, LlmProviderError } from '../../src/llm/errors';
import { AnthropicModel } from '../../src/llm/providers/anthropic';
import { generateObject } from '../../src/llm/structured';
import type { StreamPart } from '../../src/llm/types';
import { anthropicError, anthropicMessage, FakeServer, hang, sse } from './fixtures/llm/fake-server';

const KEY = 'sk-ant-test-abcdef0123456789';
const ReadFile = z.object({ path: z.string() });

describe('llm anthropic provider (real SDK against a local fake server)', () => {
  let server: FakeServer;
  const model = (maxRetries = 2) =>
    new AnthropicModel({ id: 'sonnet', providerId: 'anthropic', model: 'claude-sonnet-4-6', modelClass: 'frontier' }, { baseURL: server.url, apiKey: KEY, maxRetries });

  beforeEach(async () => {
    server = await new FakeServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('sends the system prompt apart from the messages and returns text with usage', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: 'Hi back' }], 'end_turn', { input_tokens: 20, output_tokens: 4 }));
    const reply = await model().chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], maxOutputTokens: 64 });
    assert.equal(reply.text, 'Hi back');
    assert.equal(reply.stopReason, 'end');
    assert.deepEqual(reply.usage, { inputTokens: 20, outputTokens: 4 });
    const req = server.received[0]!;
    assert.equal(req.url, '/v1/messages');
    assert.ok(req.headers['x-api-key'] === KEY || req.headers.authorization === `Bearer ${KEY}`, 'the key is sent');
    assert.equal(req.body.system, 'Be brief.');
    assert.equal(req.body.max_tokens, 64);
    assert.deepEqual(req.body.messages, [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('defines tools by zod schema, returns tool calls, and sends results back as tool_result blocks', async () => {
    server.reply(anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }], 'tool_use'));
    const tools = [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }];
    const reply = await model().chat({ messages: [{ role: 'user', content: 'Read a.ts' }], tools, toolChoice: 'required' });
    assert.deepEqual(reply.toolCalls, [{ id: 'toolu_1', name: 'read_file', arguments: { path: 'a.ts' } }]);
    assert.equal(reply.stopReason, 'tool-calls');
    assert.deepEqual(server.received[0]!.body.tools[0].input_schema, { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false });
    assert.deepEqual(server.received[0]!.body.tool_choice, { type: 'any' });

    server.reply(anthropicMessage([{ type: 'text', text: 'done' }], 'end_turn'));
    await model().chat({
      messages: [
        { role: 'user', content: 'Read a.ts' },
        { role: 'assistant', content: '', toolCalls: reply.toolCalls },
        { role: 'tool', toolCallId: 'toolu_1', name: 'read_file', content: 'export {}' },
        { role: 'tool', toolCallId: 'toolu_2', name: 'read_file', content: 'missing', isError: true },
      ],
      tools,
    });
    const messages = server.received[1]!.body.messages;
    assert.deepEqual(messages[1], { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }] });
    assert.deepEqual(messages[2], {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export {}' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: 'missing', is_error: true },
      ],
    });
  });

  it('gets structured output through a forced tool whose input schema is the requested schema', async () => {
    server.reply(anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'plan', input: { steps: ['a', 'b'] } }], 'tool_use'));
    const Plan = z.object({ steps: z.array(z.string()).min(1) });
    const result = await generateObject(model(), { messages: [{ role: 'user', content: 'Plan' }], schema: Plan, name: 'plan' });
    assert.deepEqual(result.value, { steps: ['a', 'b'] });
    const body = server.received[0]!.body;
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'plan' });
    assert.equal(body.tools[0].name, 'plan');
    assert.equal(body.tools[0].input_schema.properties.steps.type, 'array');
  });

  it('wraps a non-object schema in an object for the forced tool and unwraps the answer', async () => {
    server.reply(anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'ids', input: { value: ['ISC-1', 'ISC-2'] } }], 'tool_use'));
    const result = await generateObject(model(), { messages: [{ role: 'user', content: 'Ids' }], schema: z.array(z.string()), name: 'ids' });
    assert.deepEqual(result.value, ['ISC-1', 'ISC-2']);
    assert.deepEqual(server.received[0]!.body.tools[0].input_schema.required, ['value']);
  });

  it('streams text and tool calls from message events and reports usage', async () => {
    server.reply(
      sse([
        { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 30, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me ' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'look.' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_7', name: 'read_file', input: {} } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"path":' } } },
        { event: 'content_block_delta', data: { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"b.ts"}' } } },
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 1 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 17 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
    );
    const parts: StreamPart[] = [];
    const reply = await model().chat({ messages: [{ role: 'user', content: 'Go' }], tools: [{ name: 'read_file', description: 'Reads', parameters: ReadFile }], onPart: (p) => parts.push(p) });
    assert.equal(server.received[0]!.body.stream, true);
    assert.deepEqual(parts, [
      { type: 'text', text: 'Let me ' },
      { type: 'text', text: 'look.' },
      { type: 'tool-call', call: { id: 'toolu_7', name: 'read_file', arguments: { path: 'b.ts' } } },
    ]);
    assert.equal(reply.text, 'Let me look.');
    assert.equal(reply.stopReason, 'tool-calls');
    assert.deepEqual(reply.usage, { inputTokens: 30, outputTokens: 17 });
  });

  it('retries a 429 after its retry-after, then succeeds', async () => {
    server.reply(anthropicError(429, 'rate_limit_error', 'slow down', { 'retry-after': '1' }), anthropicMessage([{ type: 'text', text: 'ok' }], 'end_turn'));
    const started = Date.now();
    const reply = await model().chat({ messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(reply.text, 'ok');
    assert.equal(server.received.length, 2);
    assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms`);
  });

  it('retries a 500 (overloaded) then succeeds, and types the error when retries run out', async () => {
    server.reply(anthropicError(529, 'overloaded_error', 'busy'), anthropicMessage([{ type: 'text', text: 'fine' }], 'end_turn'));
    assert.equal((await model().chat({ messages: [{ role: 'user', content: 'Hi' }] })).text, 'fine');
    server.reply(anthropicError(500, 'api_error', 'boom'));
    await assert.rejects(model(0).chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => e instanceof LlmProviderError && e.failure === 'server');
  });

  it('cancels a hanging call as a cancellation', async () => {
    server.reply(hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal }), LlmCancelledError);
    assert.equal(server.received.length, 1);
  });

  it('keeps the API key out of an authentication error', async () => {
    server.reply(anthropicError(401, 'authentication_error', `invalid x-api-key ${KEY}`));
    await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmProviderError);
      assert.equal(e.failure, 'auth');
      assert.ok(!e.message.includes(KEY), e.message);
      return true;
    });
  });
});
