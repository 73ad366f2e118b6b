import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { LlmCancelledError, LlmProviderError, LlmTimeoutError } from '../../src/llm/errors';
import { OpenAiModel } from '../../src/llm/providers/openai';
import { generateObject } from '../../src/llm/structured';
import type { StreamPart } from '../../src/llm/types';
import { FakeServer, hang, openAiChunk, openAiCompletion, openAiError, sse } from './fixtures/llm/fake-server';

const KEY = 'sk-test-0123456789abcdef';
const ReadFile = z.object({ path: z.string() });

describe('llm openai provider (real SDK against a local fake server)', () => {
  let server: FakeServer;
  const model = (options: { maxRetries?: number; timeoutMs?: number; modelClass?: 'local' | 'frontier' } = {}) =>
    new OpenAiModel(
      { id: 'mini', providerId: 'openai', model: 'gpt-4o-mini', modelClass: options.modelClass ?? 'frontier' },
      { baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: options.maxRetries ?? 2, timeoutMs: options.timeoutMs },
    );

  beforeEach(async () => {
    server = await new FakeServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('sends messages and returns text with usage', async () => {
    server.reply(openAiCompletion({ content: 'Hello there' }, 'stop', { prompt_tokens: 12, completion_tokens: 3 }));
    const reply = await model().chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], maxOutputTokens: 50 });
    assert.equal(reply.text, 'Hello there');
    assert.equal(reply.stopReason, 'end');
    assert.deepEqual(reply.usage, { inputTokens: 12, outputTokens: 3 });
    const req = server.received[0]!;
    assert.equal(req.url, '/v1/chat/completions');
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(req.body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
    assert.equal(req.body.max_completion_tokens, 50);
  });

  it('sends max_tokens, which older compatible servers know, for local models', async () => {
    server.reply(openAiCompletion({ content: 'ok' }, 'stop'));
    await model({ modelClass: 'local' }).chat({ messages: [{ role: 'user', content: 'Hi' }], maxOutputTokens: 20 });
    assert.equal(server.received[0]!.body.max_tokens, 20);
    assert.equal(server.received[0]!.body.max_completion_tokens, undefined);
  });

  it('defines tools by zod schema and returns parsed tool calls', async () => {
    server.reply(openAiCompletion({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }] }, 'tool_calls'));
    const reply = await model().chat({
      messages: [{ role: 'user', content: 'Read the readme' }],
      tools: [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }],
      toolChoice: 'auto',
    });
    assert.deepEqual(reply.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }]);
    assert.equal(reply.stopReason, 'tool-calls');
    const tool = server.received[0]!.body.tools[0];
    assert.equal(tool.type, 'function');
    assert.equal(tool.function.name, 'read_file');
    assert.deepEqual(tool.function.parameters, { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false });
    assert.equal(server.received[0]!.body.tool_choice, 'auto');
  });

  it('sends tool calls and tool results back in the OpenAI shape', async () => {
    server.reply(openAiCompletion({ content: 'It says hello' }, 'stop'));
    await model().chat({
      messages: [
        { role: 'user', content: 'Read it' },
        { role: 'assistant', content: '', toolCalls: [{ id: 'call_1', name: 'read_file', arguments: { path: 'a' } }] },
        { role: 'tool', toolCallId: 'call_1', name: 'read_file', content: 'hello' },
      ],
      tools: [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }],
    });
    const messages = server.received[0]!.body.messages;
    assert.deepEqual(messages[1].tool_calls, [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a"}' } }]);
    assert.deepEqual(messages[2], { role: 'tool', tool_call_id: 'call_1', content: 'hello' });
  });

  it('asks for structured output with response_format json_schema (strict when the schema allows)', async () => {
    server.reply(openAiCompletion({ content: '{"verdict":"PASS","evidence":["exit 0"]}' }, 'stop'));
    const Verdict = z.object({ verdict: z.enum(['PASS', 'FAIL']), evidence: z.array(z.string()) });
    const result = await generateObject(model(), { messages: [{ role: 'user', content: 'Judge' }], schema: Verdict, name: 'verdict' });
    assert.deepEqual(result.value, { verdict: 'PASS', evidence: ['exit 0'] });
    assert.equal(result.usage.length, 1);
    assert.equal(result.usage[0]!.inputTokens, 11);
    const format = server.received[0]!.body.response_format;
    assert.equal(format.type, 'json_schema');
    assert.equal(format.json_schema.name, 'verdict');
    assert.equal(format.json_schema.strict, true);
    assert.deepEqual(format.json_schema.schema.required, ['verdict', 'evidence']);
  });

  it('sends optional fields without strict mode, since strict needs every field required', async () => {
    server.reply(openAiCompletion({ content: '{"a":"x"}' }, 'stop'));
    await generateObject(model(), { messages: [{ role: 'user', content: 'Go' }], schema: z.object({ a: z.string(), b: z.string().optional() }), name: 'loose' });
    assert.equal(server.received[0]!.body.response_format.json_schema.strict, false);
  });

  it('streams text and tool-call deltas over SSE and reports usage from the last chunk', async () => {
    server.reply(
      sse([
        openAiChunk({ role: 'assistant', content: 'Hel' }),
        openAiChunk({ content: 'lo' }),
        openAiChunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] }),
        openAiChunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"x.ts"}' } }] }),
        openAiChunk({}, 'tool_calls'),
        { data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini', choices: [], usage: { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 } } },
        '[DONE]',
      ]),
    );
    const parts: StreamPart[] = [];
    const reply = await model().chat({
      messages: [{ role: 'user', content: 'Go' }],
      tools: [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }],
      onPart: (p) => parts.push(p),
    });
    assert.equal(server.received[0]!.body.stream, true);
    assert.deepEqual(server.received[0]!.body.stream_options, { include_usage: true });
    assert.deepEqual(parts, [
      { type: 'text', text: 'Hel' },
      { type: 'text', text: 'lo' },
      { type: 'tool-call', call: { id: 'call_9', name: 'read_file', arguments: { path: 'x.ts' } } },
    ]);
    assert.equal(reply.text, 'Hello');
    assert.equal(reply.stopReason, 'tool-calls');
    assert.deepEqual(reply.usage, { inputTokens: 21, outputTokens: 9 });
  });

  it('estimates usage, and says so, when a compatible server streams none', async () => {
    server.reply(sse([openAiChunk({ content: 'abcdefgh' }, 'stop'), '[DONE]']));
    const reply = await model({ modelClass: 'local' }).chat({ messages: [{ role: 'user', content: 'abcd' }], onPart: () => undefined });
    assert.deepEqual(reply.usage, { inputTokens: 1, outputTokens: 2, estimated: true });
  });

  it('retries a 429 after the retry-after the server asked for, then succeeds', async () => {
    server.reply(openAiError(429, 'slow down', { 'retry-after': '1' }), openAiCompletion({ content: 'ok' }, 'stop'));
    const started = Date.now();
    const reply = await model().chat({ messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(reply.text, 'ok');
    assert.equal(server.received.length, 2);
    assert.ok(Date.now() - started >= 950, `waited ${Date.now() - started} ms, retry-after asked for 1000`);
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    server.reply(openAiError(500, 'boom'), openAiCompletion({ content: 'recovered' }, 'stop'));
    const reply = await model().chat({ messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(reply.text, 'recovered');
    assert.equal(server.received.length, 2);
  });

  it('gives a typed provider error after the retries run out', async () => {
    server.reply(openAiError(500, 'boom'), openAiError(500, 'boom'));
    await assert.rejects(model({ maxRetries: 1 }).chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmProviderError);
      assert.equal(e.failure, 'server');
      assert.equal(e.status, 500);
      return true;
    });
    assert.equal(server.received.length, 2);
  });

  it('cancels a hanging call through its AbortSignal with a cancellation, not a failure', async () => {
    server.reply(hang());
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal }), LlmCancelledError);
    assert.ok(Date.now() - started < 2000);
    assert.equal(server.received.length, 1, 'a cancelled call is not retried');
  });

  it('cancels a stream part way through', async () => {
    server.reply((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(openAiChunk({ content: 'first' }).data)}\n\n`);
    });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    await assert.rejects(
      model().chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal, onPart: (p) => (parts.push(p), controller.abort()) }),
      LlmCancelledError,
    );
    assert.deepEqual(parts, [{ type: 'text', text: 'first' }]);
  });

  it('times out a call that never answers', async () => {
    server.reply(hang());
    await assert.rejects(model({ maxRetries: 0 }).chat({ messages: [{ role: 'user', content: 'Hi' }], timeoutMs: 200 }), (e: unknown) => {
      assert.ok(e instanceof LlmTimeoutError);
      assert.match(e.message, /200 ms/);
      return true;
    });
  });

  it('keeps the API key out of error messages even when the server echoes it', async () => {
    server.reply(openAiError(401, `Incorrect API key provided: ${KEY}. You can find your API key at ...`));
    await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => {
      assert.ok(e instanceof LlmProviderError);
      assert.equal(e.failure, 'auth');
      assert.ok(!e.message.includes(KEY), e.message);
      assert.ok(!e.message.includes('0123456789abcdef'), e.message);
      return true;
    });
  });
});
