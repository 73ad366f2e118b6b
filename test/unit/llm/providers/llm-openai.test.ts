import { CancelledError } from '../../../../src/model/errors';
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { capabilitiesOf, findModel, ModelProfile, shippedCatalogue, type ModelCapabilities } from '../../../../src/llm/catalogue';
import { LlmProviderError, LlmRefusalError, LlmTimeoutError, LlmTruncatedError } from '../../../../src/llm/errors';
import { OpenAiModel } from '../../../../src/llm/providers/openai';
import { generateObject } from '../../../../src/llm/structured';
import type { StreamPart } from '../../../../src/llm/types';
import { responseEvents, responseObject } from '../../fixtures/llm/contract-openai-replies';
import { FakeServer, hang, json, openAiChunk, openAiCompletion, openAiError, sse, truncatedSse } from '../../fixtures/llm/fake-server';

/**
 * Transport: the real SDK against a local fake that replays answers (retries, 429, timeouts,
 * cancellation, cut streams, key redaction) and what each API path sends. Which requests
 * OpenAI itself accepts is proven against the contract fake (llm-openai-contract.test.ts).
 */

const KEY = 'sk-test-0123456789abcdef';
const ReadFile = z.object({ path: z.string() });
const Verdict = z.object({ verdict: z.enum(['PASS', 'FAIL']), evidence: z.array(z.string()) });
/** An unknown hosted model: Chat Completions with `max_completion_tokens`, no strict schemas, no sampling. */
const UNKNOWN = 'acme-chat-1';

describe('llm openai provider (real SDK against a local fake server)', () => {
  let server: FakeServer;
  const model = (options: { maxRetries?: number; timeoutMs?: number; modelClass?: 'local' | 'frontier'; name?: string; caps?: Partial<ModelCapabilities> } = {}) => {
    const name = options.name ?? UNKNOWN;
    const entry = findModel(shippedCatalogue(), name);
    const base = capabilitiesOf(entry, 'openai', { local: options.modelClass === 'local' });
    const profile = new ModelProfile(name, 'openai', entry, { ...base, ...options.caps });
    return new OpenAiModel(
      { id: 'm', providerId: 'openai', model: name, modelClass: options.modelClass ?? 'frontier', profile },
      { baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: options.maxRetries ?? 2, timeoutMs: options.timeoutMs },
    );
  };

  beforeEach(async () => {
    server = await new FakeServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  describe('Chat Completions (OpenAI-compatible servers)', () => {
    it('sends messages and returns text with usage', async () => {
      server.reply(openAiCompletion({ content: 'Hello there' }, 'stop', { prompt_tokens: 12, completion_tokens: 3 }));
      const reply = await model().chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], maxOutputTokens: 50, temperature: 0.2 });
      assert.equal(reply.text, 'Hello there');
      assert.equal(reply.stopReason, 'end');
      assert.deepEqual(reply.usage, { inputTokens: 12, outputTokens: 3 });
      const req = server.received[0]!;
      assert.equal(req.url, '/v1/chat/completions');
      assert.equal(req.headers.authorization, `Bearer ${KEY}`);
      assert.deepEqual(req.body.messages, [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
      assert.equal(req.body.max_completion_tokens, 50);
      assert.equal(req.body.temperature, undefined, 'an unknown model gets no sampling parameter');
      assert.equal(req.body.reasoning_effort, undefined);
    });

    it('sends the output cap under the parameter the profile names: max_tokens for local servers', async () => {
      server.reply(openAiCompletion({ content: 'ok' }, 'stop'));
      await model({ modelClass: 'local', name: 'qwen2.5-coder:7b' }).chat({ messages: [{ role: 'user', content: 'Hi' }], maxOutputTokens: 20 });
      assert.equal(server.received[0]!.body.max_tokens, 20);
      assert.equal(server.received[0]!.body.max_completion_tokens, undefined);
    });

    it('sends temperature and reasoning_effort only when the capabilities allow them', async () => {
      server.reply(openAiCompletion({ content: 'ok' }, 'stop'), openAiCompletion({ content: 'ok' }, 'stop'));
      await model({ caps: { sampling: true } }).chat({ messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
      await model({ caps: { reasoningEffort: 'low' } }).chat({ messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 });
      assert.equal(server.received[0]!.body.temperature, 0.2);
      assert.equal(server.received[1]!.body.temperature, undefined);
      assert.equal(server.received[1]!.body.reasoning_effort, 'low');
    });

    it('defines tools by zod schema and returns parsed tool calls', async () => {
      server.reply(openAiCompletion({ tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } }] }, 'tool_calls'));
      const reply = await model().chat({ messages: [{ role: 'user', content: 'Read the readme' }], tools: [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }], toolChoice: 'auto' });
      assert.deepEqual(reply.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }]);
      assert.equal(reply.stopReason, 'tool-calls');
      const tool = server.received[0]!.body.tools[0];
      assert.equal(tool.function.name, 'read_file');
      assert.deepEqual(tool.function.parameters, { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false });
      assert.equal(tool.function.strict, undefined, 'no strict flag for a server not known to take it');
      assert.equal(server.received[0]!.body.tool_choice, 'auto');
    });

    it('sends no tools when the capabilities say the server takes none, and no forced choice where it is refused', async () => {
      server.reply(openAiCompletion({ content: 'ok' }, 'stop'), openAiCompletion({ content: 'ok' }, 'stop'));
      const tools = [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }];
      await model({ caps: { tools: false } }).chat({ messages: [{ role: 'user', content: 'Hi' }], tools, toolChoice: 'required' });
      await model({ caps: { forcedToolChoice: false } }).chat({ messages: [{ role: 'user', content: 'Hi' }], tools, toolChoice: { name: 'read_file' } });
      assert.equal(server.received[0]!.body.tools, undefined);
      assert.equal(server.received[0]!.body.tool_choice, undefined);
      assert.equal(server.received[1]!.body.tools.length, 1);
      assert.equal(server.received[1]!.body.tool_choice, undefined);
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

    it('asks for structured output with a json_schema response_format, strict only where the profile says so', async () => {
      server.reply(openAiCompletion({ content: '{"verdict":"PASS","evidence":["exit 0"]}' }, 'stop'), openAiCompletion({ content: '{"a":"x","b":null}' }, 'stop'));
      const result = await generateObject(model(), { messages: [{ role: 'user', content: 'Judge' }], schema: Verdict, name: 'verdict' });
      assert.deepEqual(result.value, { verdict: 'PASS', evidence: ['exit 0'] });
      const loose = server.received[0]!.body.response_format;
      assert.equal(loose.type, 'json_schema');
      assert.equal(loose.json_schema.name, 'verdict');
      assert.equal(loose.json_schema.strict, undefined);
      const strict = await generateObject(model({ caps: { strictSchemas: true } }), { messages: [{ role: 'user', content: 'Go' }], schema: z.object({ a: z.string(), b: z.string().optional() }), name: 'loose' });
      assert.deepEqual(strict.value, { a: 'x' });
      const format = server.received[1]!.body.response_format.json_schema;
      assert.equal(format.strict, true);
      assert.deepEqual(format.schema.required, ['a', 'b'], 'an optional field goes out required and nullable');
    });

    it('puts the schema in the prompt, and sends no response_format, for prompt-only servers', async () => {
      server.reply(openAiCompletion({ content: '{"verdict":"FAIL","evidence":[]}' }, 'stop'));
      const result = await generateObject(model({ caps: { structuredOutput: 'prompt-only' } }), { messages: [{ role: 'system', content: 'You judge.' }, { role: 'user', content: 'Judge' }], schema: Verdict, name: 'verdict' });
      assert.equal(result.value.verdict, 'FAIL');
      const body = server.received[0]!.body;
      assert.equal(body.response_format, undefined);
      assert.equal(body.messages.length, 2, 'the schema joins the one system message');
      assert.match(body.messages[0].content, /^You judge\.\n\nReply with only the JSON value "verdict"/);
      assert.match(body.messages[0].content, /"evidence"/);
    });

    it('turns a refusal into a typed refusal and a cut-off structured reply into a typed truncation', async () => {
      server.reply(openAiCompletion({ content: null, refusal: 'I cannot help with that.' }, 'stop'), openAiCompletion({ content: '{"verdict":"PA' }, 'length'), openAiCompletion({ content: 'A long sto' }, 'length'));
      await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => e instanceof LlmRefusalError && e.refusal === 'I cannot help with that.');
      await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Judge' }], responseFormat: { name: 'verdict', schema: Verdict }, maxOutputTokens: 40 }), (e: unknown) => {
        assert.ok(e instanceof LlmTruncatedError, String(e));
        assert.equal(e.maxOutputTokens, 40);
        return true;
      });
      const plain = await model().chat({ messages: [{ role: 'user', content: 'Tell a story' }] });
      assert.equal(plain.stopReason, 'max-tokens', 'plain chat cut off is a short answer, not an error');
    });

    it('streams text and tool-call deltas over SSE and reports usage from the last chunk', async () => {
      server.reply(
        sse([
          openAiChunk({ role: 'assistant', content: 'Hel' }),
          openAiChunk({ content: 'lo' }),
          openAiChunk({ tool_calls: [{ index: 0, id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"pa' } }] }),
          openAiChunk({ tool_calls: [{ index: 0, function: { arguments: 'th":"x.ts"}' } }] }),
          openAiChunk({}, 'tool_calls'),
          { data: { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: UNKNOWN, choices: [], usage: { prompt_tokens: 21, completion_tokens: 9, total_tokens: 30 } } },
          '[DONE]',
        ]),
      );
      const parts: StreamPart[] = [];
      const reply = await model().chat({ messages: [{ role: 'user', content: 'Go' }], tools: [{ name: 'read_file', description: 'Reads a file', parameters: ReadFile }], onPart: (p) => parts.push(p) });
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
      const reply = await model({ modelClass: 'local', name: 'qwen2.5-coder:7b' }).chat({ messages: [{ role: 'user', content: 'abcd' }], onPart: () => undefined });
      assert.deepEqual(reply.usage, { inputTokens: 1, outputTokens: 2, estimated: true });
    });
  });

  describe('transport', () => {
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

    it('never retries a 400, and keeps the parameter it names', async () => {
      server.reply(json(400, { error: { message: "Unsupported value: 'temperature' does not support 0.2 with this model.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' } }));
      await assert.rejects(model({ caps: { sampling: true } }).chat({ messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError);
        assert.equal(e.failure, 'bad-request');
        assert.equal(e.param, 'temperature');
        return true;
      });
      assert.equal(server.received.length, 1);
    });

    it('cancels a hanging call through its AbortSignal with a cancellation, not a failure', async () => {
      server.reply(hang());
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal }), CancelledError);
      assert.equal(server.received.length, 1, 'a cancelled call is not retried');
    });

    it('cancels a stream part way through', async () => {
      server.reply((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: ${JSON.stringify(openAiChunk({ content: 'first' }).data)}\n\n`);
      });
      const controller = new AbortController();
      const parts: StreamPart[] = [];
      await assert.rejects(model().chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal, onPart: (p) => (parts.push(p), controller.abort()) }), CancelledError);
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

  describe('Responses (transport)', () => {
    const RESPONSES = 'gpt-5.6-terra';
    const final = responseObject({ text: 'The answer is 42' }, { model: RESPONSES, reasoning: true, inputText: 'Hi' });

    for (const how of ['destroy', 'end'] as const) {
      it(`a stream ${how === 'destroy' ? 'cut off' : 'closed cleanly'} before response.completed is a connection error`, async () => {
        server.reply(truncatedSse(responseEvents(final).slice(0, 8), how));
        const parts: StreamPart[] = [];
        await assert.rejects(model({ name: RESPONSES, maxRetries: 0 }).chat({ messages: [{ role: 'user', content: 'Hi' }], onPart: (p) => parts.push(p) }), (e: unknown) => {
          assert.ok(e instanceof LlmProviderError, String(e));
          assert.equal(e.failure, 'connection');
          return true;
        });
        assert.equal(server.received[0]!.url, '/v1/responses');
        assert.ok(parts.length > 0, 'what arrived was still streamed');
      });
    }

    it('an error event in the stream is a typed provider error', async () => {
      server.reply(sse([...responseEvents(final).slice(0, 2), { event: 'error', data: { type: 'error', code: 'server_error', message: 'The server had an error', param: null, sequence_number: 2 } }]));
      await assert.rejects(model({ name: RESPONSES, maxRetries: 0 }).chat({ messages: [{ role: 'user', content: 'Hi' }], onPart: () => undefined }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.match(e.message, /The server had an error/);
        return true;
      });
    });

    it('a response.failed event is a typed provider error', async () => {
      const failed = { ...final, status: 'failed', error: { code: 'server_error', message: 'The model failed' }, output: [] };
      server.reply(sse([...responseEvents(final).slice(0, 2), { event: 'response.failed', data: { type: 'response.failed', sequence_number: 2, response: failed } }]));
      await assert.rejects(model({ name: RESPONSES }).chat({ messages: [{ role: 'user', content: 'Hi' }], onPart: () => undefined }), /the response failed: The model failed/);
    });

    it('a 200 that is not a Responses object is a bad response, not an empty answer', async () => {
      server.reply(openAiCompletion({ content: 'a Chat Completions body' }, 'stop'));
      await assert.rejects(model({ name: RESPONSES }).chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.equal(e.failure, 'bad-response');
        return true;
      });
      assert.equal(server.received[0]!.url, '/v1/responses');
    });

    it('cancels a Responses stream part way through', async () => {
      server.reply((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const e of responseEvents(final).slice(0, 7)) res.write(`event: ${(e as { event: string }).event}\ndata: ${JSON.stringify((e as { data: unknown }).data)}\n\n`);
      });
      const controller = new AbortController();
      const parts: StreamPart[] = [];
      await assert.rejects(
        model({ name: RESPONSES }).chat({ messages: [{ role: 'user', content: 'Hi' }], signal: controller.signal, onPart: (p) => (parts.push(p), controller.abort()) }),
        CancelledError,
      );
      assert.deepEqual(parts, [{ type: 'text', text: 'The ans' }]);
    });
  });
});
