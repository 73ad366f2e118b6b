import { CancelledError } from '../../../../src/model/errors';
import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { LlmProviderError, ToolArgumentsError } from '../../../../src/llm/errors';
import { parseToolArguments } from '../../../../src/llm/json-schema';
import { AnthropicModel } from '../../../../src/llm/providers/anthropic';
import { OpenAiModel } from '../../../../src/llm/providers/openai';
import type { LanguageModel, StreamPart } from '../../../../src/llm/types';
import { brokenJson, FakeServer, hang, openAiChunk, openAiCompletion, truncatedSse } from '../../fixtures/llm/fake-server';

const KEY = 'sk-test-faults-0123456789';
const messages = [{ role: 'user' as const, content: 'Hi' }];
const EditFile = z.object({ path: z.string().min(1), line: z.number().int().positive(), text: z.string() });
const editTool = { name: 'edit_file', description: 'Replaces one line', parameters: EditFile };

const anthropicStart = { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 9, output_tokens: 1 } } } };
const anthropicText = (index: number, text: string) => [
  { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } },
  { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } } },
];

describe('llm fault injection (real SDKs against a local fake server)', () => {
  let server: FakeServer;
  const openai = (): LanguageModel => new OpenAiModel({ id: 'mini', providerId: 'openai', model: 'acme-chat-1', modelClass: 'frontier' }, { baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0, timeoutMs: 5000 });
  const anthropic = (): LanguageModel => new AnthropicModel({ id: 'sonnet', providerId: 'anthropic', model: 'claude-sonnet-4-6', modelClass: 'frontier' }, { baseURL: server.url, apiKey: KEY, maxRetries: 0, timeoutMs: 5000 });

  beforeEach(async () => {
    server = await new FakeServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  for (const how of ['destroy', 'end'] as const) {
    const cut = how === 'destroy' ? 'cut off mid-stream' : 'closed early but cleanly';
    it(`OpenAI: a stream ${cut} is a typed provider error, not a partial success`, async () => {
      server.reply(truncatedSse([openAiChunk({ role: 'assistant', content: 'The answ' })], how));
      const parts: StreamPart[] = [];
      await assert.rejects(openai().chat({ messages, onPart: (p) => parts.push(p) }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.equal(e.failure, 'connection');
        assert.match(e.message, /before the reply was complete/);
        assert.ok(!e.message.includes(KEY));
        return true;
      });
      assert.deepEqual(parts, [{ type: 'text', text: 'The answ' }], 'what arrived was still streamed');
    });

    it(`Anthropic: a stream ${cut} is a typed provider error, not a partial success`, async () => {
      server.reply(truncatedSse([anthropicStart, ...anthropicText(0, 'The answ')], how));
      await assert.rejects(anthropic().chat({ messages, onPart: () => undefined }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.equal(e.failure, 'connection');
        assert.match(e.message, /before the reply was complete/);
        return true;
      });
    });
  }

  it('OpenAI: a stream that finished but never sent [DONE] still succeeds (servers differ there)', async () => {
    server.reply(truncatedSse([openAiChunk({ content: 'done' }, 'stop')], 'end'));
    assert.equal((await openai().chat({ messages, onPart: () => undefined })).text, 'done');
  });

  it('invalid JSON in a non-streamed body is a typed bad-response error', async () => {
    server.reply(brokenJson());
    await assert.rejects(openai().chat({ messages }), (e: unknown) => e instanceof LlmProviderError && e.failure === 'bad-response');
    server.reply(brokenJson('{"type":"message","content":[{"type":"text","text":'));
    await assert.rejects(anthropic().chat({ messages }), (e: unknown) => e instanceof LlmProviderError && e.failure === 'bad-response');
  });

  it('tool-call arguments that violate the tool schema give a typed error naming the tool and the fields', async () => {
    server.reply(openAiCompletion({ tool_calls: [{ id: 'call_7', type: 'function', function: { name: 'edit_file', arguments: '{"path":"","line":"three"}' } }] }, 'tool_calls'));
    const reply = await openai().chat({ messages, tools: [editTool] });
    const parsed = parseToolArguments(editTool, reply.toolCalls[0]!);
    assert.ok(!parsed.ok);
    assert.ok(parsed.error instanceof ToolArgumentsError);
    assert.equal(parsed.error.tool, 'edit_file');
    assert.equal(parsed.error.callId, 'call_7');
    assert.deepEqual(parsed.error.issues.map((i) => i.path), ['path', 'line', 'text']);
    assert.match(parsed.error.message, /arguments of tool "edit_file" \(call call_7\) do not match its schema: path: .*; line: .*; text: /);

    server.reply(openAiCompletion({ tool_calls: [{ id: 'call_8', type: 'function', function: { name: 'edit_file', arguments: '{"path": "a.ts", "line": 3' } }] }, 'tool_calls'));
    const truncated = parseToolArguments(editTool, (await openai().chat({ messages, tools: [editTool] })).toolCalls[0]!);
    assert.ok(!truncated.ok && truncated.error.tool === 'edit_file', 'arguments that are not even JSON are reported, not thrown');
    assert.ok(parseToolArguments(editTool, { id: 'c', name: 'edit_file', arguments: { path: 'a.ts', line: 3, text: 'x' } }).ok);
  });

  for (const [name, make] of [['OpenAI', () => openai()], ['Anthropic', () => anthropic()]] as const) {
    it(`${name}: cancelling closes the HTTP request on the server side`, async () => {
      server.reply(hang());
      const controller = new AbortController();
      const call = make().chat({ messages, signal: controller.signal });
      while (server.received.length === 0) await new Promise((r) => setTimeout(r, 5));
      assert.equal(server.abandoned.length, 0);
      controller.abort();
      await assert.rejects(call, CancelledError);
      await server.waitForAbandoned(1);
      assert.equal(server.abandoned[0]!.url, name === 'OpenAI' ? '/v1/chat/completions' : '/v1/messages');
    });

    it(`${name}: cancelling a stream part way closes its connection`, async () => {
      server.reply((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        if (name === 'OpenAI') res.write(`data: ${JSON.stringify(openAiChunk({ content: 'first' }).data)}\n\n`);
        else for (const e of [anthropicStart, ...anthropicText(0, 'first')]) res.write(`event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`);
      });
      const controller = new AbortController();
      await assert.rejects(make().chat({ messages, signal: controller.signal, onPart: () => controller.abort() }), CancelledError);
      await server.waitForAbandoned(1);
    });
  }
});
