import { CancelledError } from '../../../../src/model/errors';
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { capabilitiesOf, CatalogueEntry, ModelProfile, type CatalogueEntryInput } from '../../../../src/llm/catalogue';
import { LlmProviderError, LlmRefusalError, LlmTruncatedError } from '../../../../src/llm/errors';
import { AnthropicModel } from '../../../../src/llm/providers/anthropic';
import { generateObject } from '../../../../src/llm/structured';
import type { StreamPart } from '../../../../src/llm/types';
import { anthropicError, anthropicMessage, FakeServer, hang, sse } from '../../fixtures/llm/fake-server';

const KEY = 'sk-ant-test-abcdef0123456789';
const ReadFile = z.object({ path: z.string() });

/**
 * The transport and the wire shapes, against a server that replays canned answers. The
 * model's capabilities are pinned here (not read from the shipped catalogue), so each test
 * says which kind of model it speaks to; the documented rules per catalogued model are held
 * by llm-anthropic-contract.test.ts.
 */
const SONNET_4_6: CatalogueEntryInput = {
  name: 'claude-sonnet-4-6',
  family: 'claude-sonnet',
  provider: 'anthropic',
  api: 'anthropic-messages',
  sampling: true,
  structuredOutput: 'anthropic-output-format',
  forcedToolChoice: true,
  prefill: false,
  maxOutputTokens: 64000,
  contextWindow: 1000000,
  prices: { input: 3, output: 15, readOn: '2026-11-24' },
};
const profileOf = (overrides: Partial<CatalogueEntryInput> = {}) => {
  const entry = CatalogueEntry.parse({ ...SONNET_4_6, ...overrides });
  return new ModelProfile(entry.name, 'anthropic', entry, capabilitiesOf(entry, 'anthropic'));
};

describe('llm anthropic provider (real SDK against a local fake server)', () => {
  let server: FakeServer;
  const model = (maxRetries = 2, overrides: Partial<CatalogueEntryInput> = {}) =>
    new AnthropicModel(
      { id: 'sonnet', providerId: 'anthropic', model: 'claude-sonnet-4-6', modelClass: 'frontier', profile: profileOf(overrides) },
      { baseURL: server.url, apiKey: KEY, maxRetries },
    );
  const forcedTool = () => model(2, { structuredOutput: 'forced-tool' });

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

  it('gets structured output through output_config.format, the JSON in the text block', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: '{"steps":["a","b"]}' }], 'end_turn'));
    const Plan = z.object({ steps: z.array(z.string().min(1)).min(2), note: z.string().optional() });
    const result = await generateObject(model(), { messages: [{ role: 'user', content: 'Plan' }], schema: Plan, name: 'plan' });
    assert.deepEqual(result.value, { steps: ['a', 'b'] });
    const body = server.received[0]!.body;
    assert.equal(body.tools, undefined);
    assert.equal(body.tool_choice, undefined);
    // The documented subset: closed objects, optional fields stay optional, unsupported constraints go into words.
    assert.deepEqual(body.output_config, {
      format: {
        type: 'json_schema',
        schema: {
          type: 'object',
          properties: { steps: { type: 'array', items: { type: 'string', description: '(at least 1 character)' }, minItems: 1, description: '(at least 2 items)' }, note: { type: 'string' } },
          required: ['steps'],
          additionalProperties: false,
        },
      },
    });
  });

  it('wraps a non-object schema for output_config.format and unwraps the answer', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: '{"value":["ISC-1","ISC-2"]}' }], 'end_turn'));
    const result = await generateObject(model(), { messages: [{ role: 'user', content: 'Ids' }], schema: z.array(z.string()), name: 'ids' });
    assert.deepEqual(result.value, ['ISC-1', 'ISC-2']);
    assert.deepEqual(server.received[0]!.body.output_config.format.schema.required, ['value']);
  });

  it('gets structured output through a forced tool whose input schema is the requested schema', async () => {
    server.reply(anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'plan', input: { steps: ['a', 'b'] } }], 'tool_use'));
    const Plan = z.object({ steps: z.array(z.string()).min(1) });
    const result = await generateObject(forcedTool(), { messages: [{ role: 'user', content: 'Plan' }], schema: Plan, name: 'plan' });
    assert.deepEqual(result.value, { steps: ['a', 'b'] });
    const body = server.received[0]!.body;
    assert.deepEqual(body.tool_choice, { type: 'tool', name: 'plan' });
    assert.equal(body.tools[0].name, 'plan');
    assert.equal(body.tools[0].input_schema.properties.steps.type, 'array');
    assert.equal(body.output_config, undefined);
  });

  it('wraps a non-object schema in an object for the forced tool and unwraps the answer', async () => {
    server.reply(anthropicMessage([{ type: 'tool_use', id: 'toolu_1', name: 'ids', input: { value: ['ISC-1', 'ISC-2'] } }], 'tool_use'));
    const result = await generateObject(forcedTool(), { messages: [{ role: 'user', content: 'Ids' }], schema: z.array(z.string()), name: 'ids' });
    assert.deepEqual(result.value, ['ISC-1', 'ISC-2']);
    assert.deepEqual(server.received[0]!.body.tools[0].input_schema.required, ['value']);
  });

  it('asks for the JSON in the system prompt where a forced tool is the mode but forcing is refused', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: '```json\n{"steps":["a"]}\n```' }], 'end_turn'));
    const Plan = z.object({ steps: z.array(z.string()) });
    const answer = model(2, { structuredOutput: 'forced-tool', forcedToolChoice: false });
    const result = await generateObject(answer, { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Plan' }], schema: Plan, name: 'plan' });
    assert.deepEqual(result.value, { steps: ['a'] });
    const body = server.received[0]!.body;
    assert.equal(body.tool_choice, undefined);
    assert.equal(body.tools, undefined);
    assert.equal(body.output_config, undefined);
    assert.match(body.system, /^Be brief\.\n\nGive your answer as a "plan": reply with only a JSON value/);
    assert.ok(body.system.includes('"steps"'), 'the schema is in the prompt');
  });

  it('sends temperature only to a model that takes sampling parameters, and effort only when the catalogue names one', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: 'a' }], 'end_turn'), anthropicMessage([{ type: 'text', text: 'b' }], 'end_turn'));
    await model().chat({ messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
    await model(2, { sampling: false, reasoningEffort: 'low' }).chat({ messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
    assert.equal(server.received[0]!.body.temperature, 0.2);
    assert.equal(server.received[0]!.body.output_config, undefined);
    assert.equal('temperature' in server.received[1]!.body, false);
    assert.deepEqual(server.received[1]!.body.output_config, { effort: 'low' });
  });

  it('caps max_tokens at the model output limit and never ends the conversation on an assistant turn without prefill', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: 'more' }], 'end_turn'));
    await model().chat({ messages: [{ role: 'user', content: 'Write' }, { role: 'assistant', content: 'Part one.' }], maxOutputTokens: 500_000 });
    const body = server.received[0]!.body;
    assert.equal(body.max_tokens, 64000);
    assert.deepEqual(body.messages.at(-1), { role: 'user', content: [{ type: 'text', text: 'Continue from where your last reply ended.' }] });
  });

  it('sends a forced tool choice only where the model accepts one', async () => {
    const tools = [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }];
    server.reply(anthropicMessage([{ type: 'text', text: 'ok' }], 'end_turn'), anthropicMessage([{ type: 'text', text: 'ok' }], 'end_turn'));
    await model(2, { forcedToolChoice: false }).chat({ messages: [{ role: 'user', content: 'Read' }], tools, toolChoice: 'required' });
    await model(2, { forcedToolChoice: false }).chat({ messages: [{ role: 'user', content: 'Read' }], tools, toolChoice: { name: 'read_file' } });
    assert.deepEqual(server.received[0]!.body.tool_choice, { type: 'auto' });
    assert.deepEqual(server.received[1]!.body.tool_choice, { type: 'auto' });
  });

  it('a max_tokens stop throws a typed truncation on a structured call and is a max-tokens stop on plain chat', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: '{"steps":["a' }], 'max_tokens'), anthropicMessage([{ type: 'text', text: 'Once upon' }], 'max_tokens'));
    const responseFormat = { name: 'plan', schema: z.object({ steps: z.array(z.string()) }) };
    await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Plan' }], responseFormat, maxOutputTokens: 50 }), (e: unknown) => {
      assert.ok(e instanceof LlmTruncatedError, String(e));
      assert.equal(e.maxOutputTokens, 50);
      assert.equal(e.reason, 'max_tokens');
      return true;
    });
    assert.equal(server.received.length, 1, 'a cut-off answer is not parsed or repaired by the provider');
    const reply = await model().chat({ messages: [{ role: 'user', content: 'Story' }] });
    assert.equal(reply.stopReason, 'max-tokens');
    assert.equal(reply.text, 'Once upon');
  });

  it('a refusal throws a typed refusal and is never repaired in the same conversation', async () => {
    server.reply(anthropicMessage([{ type: 'text', text: 'I cannot help with that.' }], 'refusal'));
    await assert.rejects(generateObject(model(), { messages: [{ role: 'user', content: 'Plan' }], schema: z.object({ steps: z.array(z.string()) }), name: 'plan' }), (e: unknown) => {
      assert.ok(e instanceof LlmRefusalError, String(e));
      assert.equal(e.refusal, 'I cannot help with that.');
      return true;
    });
    assert.equal(server.received.length, 1);
  });

  it('skips thinking blocks in the text and sends them back unchanged with the tool calls they came with', async () => {
    const thinking = { type: 'thinking', thinking: '', signature: 'sig_abc' };
    const redacted = { type: 'redacted_thinking', data: 'opaque' };
    server.reply(
      anthropicMessage([thinking, redacted, { type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } }], 'tool_use'),
      anthropicMessage([thinking, { type: 'text', text: 'done' }], 'end_turn'),
    );
    const tools = [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }];
    const claude = model();
    const first = await claude.chat({ messages: [{ role: 'user', content: 'Read a.ts' }], tools });
    assert.equal(first.text, 'Reading.');
    const second = await claude.chat({
      messages: [
        { role: 'user', content: 'Read a.ts' },
        { role: 'assistant', content: first.text, toolCalls: first.toolCalls },
        { role: 'tool', toolCallId: 'toolu_9', name: 'read_file', content: 'export {}' },
      ],
      tools,
    });
    assert.equal(second.text, 'done');
    assert.deepEqual(server.received[1]!.body.messages[1], {
      role: 'assistant',
      content: [thinking, redacted, { type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_9', name: 'read_file', input: { path: 'a.ts' } }],
    });
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
    await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal }), CancelledError);
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
