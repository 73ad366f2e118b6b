import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { capabilitiesOf, findModel, ModelProfile, shippedCatalogue, type CatalogueEntry, type ModelCapabilities } from '../../../../src/llm/catalogue';
import { LlmProviderError, LlmRefusalError, LlmTruncatedError } from '../../../../src/llm/errors';
import { OpenAiModel } from '../../../../src/llm/providers/openai';
import { generateObject } from '../../../../src/llm/structured';
import type { ChatMessage, StreamPart } from '../../../../src/llm/types';
import { contentQueue, type ContentStep } from '../../fixtures/llm/contract-content';
import { OpenAiContractServer, type OpenAiContractOptions } from '../../fixtures/llm/contract-openai';

/**
 * The real OpenAiModel against a fake that holds OpenAI's documented request rules per model
 * (test/unit/fixtures/llm/contract-openai-rules.ts). Every catalogued family must get a
 * structured answer and a tool-call round trip through; a request that breaks a rule must
 * be refused the way the real API refuses it.
 */

const catalogue = shippedCatalogue();
const TODAY = catalogue.readOn;
const KEY = 'sk-test-contract-0123456789';

// Shaped like the product's schemas: an optional field and a union, which strict mode must get clean.
const Verdict = z.object({
  verdict: z.enum(['PASS', 'FAIL']),
  evidence: z.array(z.string()),
  note: z.string().optional(),
  check: z.discriminatedUnion('kind', [z.object({ kind: z.literal('command'), command: z.string() }), z.object({ kind: z.literal('manual') })]),
});
const ReadFile = z.object({ path: z.string(), startLine: z.number().int().optional() });
const tools = [{ name: 'read_file', description: 'Reads a file of the workspace', parameters: ReadFile }];
const system: ChatMessage = { role: 'system', content: 'You are the verifier.' };

const live = (e: CatalogueEntry) => !e.shutdown || e.shutdown > TODAY;
const openAiModels = catalogue.models.filter((m) => m.provider === 'openai');
const representatives = [...new Set(openAiModels.map((m) => m.family))].flatMap((family) => openAiModels.find((m) => m.family === family && live(m)) ?? []);
if (!representatives.some((m) => m.name === 'gpt-5-mini')) representatives.push(findModel(catalogue, 'gpt-5-mini')!);

describe('llm openai contract (real OpenAiModel against a fake that enforces OpenAI request rules)', () => {
  let server: OpenAiContractServer;
  const running: OpenAiContractServer[] = [];
  let steps: ContentStep[];
  const start = async (options: Partial<OpenAiContractOptions> = {}) => {
    steps = [];
    server = await new OpenAiContractServer({ content: (req) => contentQueue(steps.splice(0, 1))(req), today: TODAY, ...options }).start();
    running.push(server);
  };
  /** A model as resolve.ts builds it; `caps` overrides capabilities to make a deliberately wrong request. */
  const model = (name: string, options: { local?: boolean; caps?: Partial<ModelCapabilities> } = {}) => {
    const entry = findModel(catalogue, name);
    const profile = new ModelProfile(name, options.local ? 'ollama' : 'openai', entry, { ...capabilitiesOf(entry, 'openai', { local: options.local }), ...options.caps });
    return new OpenAiModel(
      { id: name, providerId: profile.providerId, model: name, modelClass: options.local ? 'local' : 'frontier', profile },
      { baseURL: server.baseURL, apiKey: KEY, maxRetries: 0, timeoutMs: 5000 },
    );
  };

  afterEach(async () => {
    for (const s of running.splice(0)) await s.stop();
  });

  it('covers every catalogued OpenAI family, gpt-5-mini included', () => {
    assert.ok(representatives.length >= 3, representatives.map((m) => m.name).join(', '));
    assert.ok(representatives.some((m) => m.name === 'gpt-5-mini'));
  });

  for (const entry of representatives) {
    describe(`${entry.family}: ${entry.name}`, () => {
      beforeEach(() => start());

      it('answers a structured call (the manager sends temperature 0.2; only models that take it get it)', async () => {
        steps.push({ object: { verdict: 'PASS', evidence: ['exit 0'], note: null, check: { kind: 'command', command: 'npm test' } } });
        const result = await generateObject(model(entry.name), { messages: [system, { role: 'user', content: 'Judge' }], schema: Verdict, name: 'verdict', temperature: 0.2 });
        assert.deepEqual(result.value, { verdict: 'PASS', evidence: ['exit 0'], check: { kind: 'command', command: 'npm test' } });
        const [req] = server.received;
        assert.equal(req!.status, 200, JSON.stringify(req!.error));
        assert.equal(req!.endpoint, entry.api === 'responses' ? 'responses' : 'chat');
        if (req!.endpoint === 'responses') {
          assert.equal(req!.body.text.format.strict, true);
          assert.equal(req!.body.store, false);
          assert.equal(req!.body.instructions, 'You are the verifier.');
          assert.deepEqual(req!.body.reasoning, entry.reasoningEffort ? { effort: entry.reasoningEffort } : undefined);
        }
        assert.equal(req!.body.temperature, entry.sampling ? 0.2 : undefined);
      });

      it('makes a tool call and takes its result back', async () => {
        steps.push({ toolCalls: [{ name: 'read_file', arguments: { path: 'README.md', startLine: null } }] }, { text: 'The readme says hello.' });
        const m = model(entry.name);
        const first = await m.chat({ messages: [system, { role: 'user', content: 'Read the readme' }], tools, toolChoice: 'required' });
        assert.equal(first.stopReason, 'tool-calls');
        assert.equal(first.toolCalls.length, 1);
        const call = first.toolCalls[0]!;
        assert.deepEqual(call.arguments, { path: 'README.md', startLine: null });
        const second = await m.chat({
          messages: [system, { role: 'user', content: 'Read the readme' }, { role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, name: call.name, content: 'hello' }],
          tools,
        });
        assert.equal(second.text, 'The readme says hello.');
        assert.deepEqual(server.refused, []);
        const body = server.received[1]!.body;
        if (entry.api === 'responses') {
          assert.deepEqual(body.input.slice(1), [
            { type: 'function_call', call_id: call.id, name: 'read_file', arguments: '{"path":"README.md","startLine":null}' },
            { type: 'function_call_output', call_id: call.id, output: 'hello' },
          ]);
          assert.equal(body.tools[0].strict, true);
        }
      });
    });
  }

  describe('the fake is not a yes-man', () => {
    beforeEach(() => start());

    it('refuses temperature on a reasoning model with the API 400 naming temperature', async () => {
      const wrong = model('gpt-5.6-terra', { caps: { sampling: true } });
      await assert.rejects(wrong.chat({ messages: [{ role: 'user', content: 'Hi' }], temperature: 0.2 }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.equal(e.status, 400);
        assert.equal(e.failure, 'bad-request');
        assert.equal(e.param, 'temperature');
        assert.match(e.message, /Unsupported value: 'temperature' does not support 0\.2 with this model\. Only the default \(1\) value is supported\./);
        return true;
      });
    });

    it('refuses function tools on Chat Completions for GPT-5.6 and GPT-6, pointing at /v1/responses', async () => {
      for (const name of ['gpt-5.6-terra', 'gpt-6.1-terra']) {
        await assert.rejects(model(name, { caps: { api: 'chat-completions', maxTokensParam: 'max_completion_tokens' } }).chat({ messages: [{ role: 'user', content: 'Hi' }], tools }), (e: unknown) => {
          assert.ok(e instanceof LlmProviderError, String(e));
          assert.equal(e.param, 'reasoning_effort');
          assert.match(e.message, new RegExp(`Function tools with reasoning_effort are not supported for ${name.replace('.', '\\.')} in /v1/chat/completions.*use /v1/responses`));
          return true;
        });
      }
    });

    const rejects = async (path: string, body: unknown, status: number, pattern: RegExp, param?: string | null) => {
      const res = await fetch(`${server.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const json = (await res.json()) as { error: { message: string; type: string; param: string | null } };
      assert.equal(res.status, status, json.error.message);
      assert.match(json.error.message, pattern);
      if (param !== undefined) assert.equal(json.error.param, param);
    };
    const input = [{ role: 'user', content: 'Hi' }];
    const messages = input;

    it('refuses what OpenAI refuses, request by request, in its own words', async () => {
      await rejects('/responses', { model: 'gpt-6-luna', input, max_tokens: 100 }, 400, /^Unknown parameter: 'max_tokens'\.$/, 'max_tokens');
      await rejects('/responses', { model: 'gpt-6-luna', input, max_completion_tokens: 100 }, 400, /Unknown parameter: 'max_completion_tokens'/, 'max_completion_tokens');
      await rejects('/chat/completions', { model: 'gpt-5-mini', messages, max_tokens: 100 }, 400, /'max_tokens' is not supported with this model\. Use 'max_completion_tokens' instead\./, 'max_tokens');
      await rejects('/responses', { model: 'gpt-6.1-sol', input, reasoning: { effort: 'none' } }, 400, /'reasoning\.effort' does not support 'none' with this model\. Supported values are: 'low',/, 'reasoning.effort');
      await rejects('/responses', { model: 'gpt-5-mini', input, reasoning: { effort: 'xhigh' } }, 400, /does not support 'xhigh'/, 'reasoning.effort');
      await rejects('/responses', { model: 'gpt-5-mini', input, top_p: 0.5 }, 400, /'top_p' does not support 0\.5/, 'top_p');
      const loose = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'], additionalProperties: false };
      await rejects('/responses', { model: 'gpt-6-luna', input, text: { format: { type: 'json_schema', name: 'x', schema: loose, strict: true } } }, 400, /Invalid schema for response_format 'x': In context=\(\), 'required' is required .* Missing 'b'\./);
      const open = { type: 'object', properties: { a: { type: 'object', properties: {}, required: [] } }, required: ['a'], additionalProperties: false };
      await rejects('/chat/completions', { model: 'gpt-4.1', messages, response_format: { type: 'json_schema', json_schema: { name: 'y', schema: open, strict: true } } }, 400, /In context=\('properties', 'a'\), 'additionalProperties' is required to be supplied and to be false\./, 'response_format');
      const union = { type: 'object', properties: { c: { oneOf: [{ type: 'string' }, { type: 'number' }] } }, required: ['c'], additionalProperties: false };
      const fn = { type: 'function', name: 'f', parameters: union, strict: true };
      await rejects('/responses', { model: 'gpt-6-luna', input, tools: [fn] }, 400, /Invalid schema for function 'f': In context=\('properties', 'c'\), 'oneOf' is not permitted\./, 'tools[0].parameters');
      await rejects('/responses', { model: 'gpt-6-luna', input: [...input, { type: 'function_call_output', call_id: 'call_x', output: 'hi' }] }, 400, /No tool call found for function call output with call_id call_x\./);
      await rejects('/responses', { model: 'gpt-6-luna', input, max_output_tokens: 1_000_000 }, 400, /Expected a value <= 128000/);
      await rejects('/responses', { model: 'no-such-model', input }, 404, /The model `no-such-model` does not exist/);
      // The rule is about values other than the default: temperature 1 goes through.
      steps.push({ text: 'ok' });
      const ok = await fetch(`${server.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-5-mini', input, temperature: 1 }) });
      assert.equal(ok.status, 200);
    });
  });

  describe('model replies', () => {
    beforeEach(() => start());

    it('a refusal is a typed refusal, streamed or not', async () => {
      steps.push({ refusal: 'I cannot help with that.' }, { refusal: 'Not this one.' });
      await assert.rejects(model('gpt-6-luna').chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => e instanceof LlmRefusalError && e.refusal === 'I cannot help with that.');
      await assert.rejects(model('gpt-6-luna').chat({ messages: [{ role: 'user', content: 'Hi' }], onPart: () => undefined }), (e: unknown) => e instanceof LlmRefusalError && e.refusal === 'Not this one.');
    });

    it('an incomplete structured reply is a typed truncation; an incomplete plain reply stops at max-tokens', async () => {
      steps.push({ truncated: '{"verdict":"PA' }, { truncated: '{"verdict":"PA' }, { truncated: 'Once upon a' });
      const m = model('gpt-5.6-terra');
      const ask = { messages: [{ role: 'user' as const, content: 'Judge' }], responseFormat: { name: 'verdict', schema: Verdict }, maxOutputTokens: 64 };
      for (const onPart of [undefined, () => undefined]) {
        await assert.rejects(m.chat({ ...ask, ...(onPart ? { onPart } : {}) }), (e: unknown) => {
          assert.ok(e instanceof LlmTruncatedError, String(e));
          assert.equal(e.reason, 'max_output_tokens');
          assert.equal(e.maxOutputTokens, 64);
          return true;
        });
      }
      const plain = await m.chat({ messages: [{ role: 'user', content: 'A story' }] });
      assert.equal(plain.stopReason, 'max-tokens');
      assert.equal(plain.text, 'Once upon a');
    });

    it('streams text and function calls through the Responses API', async () => {
      steps.push({ text: 'Reading the readme now.', toolCalls: [{ name: 'read_file', arguments: { path: 'README.md', startLine: 3 } }] });
      const parts: StreamPart[] = [];
      const reply = await model('gpt-6-luna').chat({ messages: [{ role: 'user', content: 'Read it' }], tools, onPart: (p) => parts.push(p) });
      assert.equal(server.received[0]!.body.stream, true);
      const text = parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text);
      assert.ok(text.length > 1, 'the text arrived in several deltas');
      assert.equal(text.join(''), 'Reading the readme now.');
      assert.deepEqual(parts.at(-1), { type: 'tool-call', call: { id: 'call_1', name: 'read_file', arguments: { path: 'README.md', startLine: 3 } } });
      assert.equal(reply.text, 'Reading the readme now.');
      assert.deepEqual(reply.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md', startLine: 3 } }]);
      assert.equal(reply.stopReason, 'tool-calls');
      assert.equal(reply.servedBy, 'gpt-6-luna');
      assert.ok(reply.usage.inputTokens > 0 && reply.usage.estimated === undefined);
    });

    it('a model past its shutdown date is gone (404), as the real API answers', async () => {
      await start({ today: '2026-12-11' });
      await assert.rejects(model('gpt-5-mini').chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.equal(e.failure, 'not-found');
        assert.match(e.message, /The model `gpt-5-mini` has been deprecated/);
        return true;
      });
    });
  });

  describe('a local OpenAI-compatible server', () => {
    const LOCAL = 'qwen2.5-coder:7b';

    it('that refuses tools answers with its 400 naming tools; without tools the call goes through', async () => {
      await start({ localModels: [LOCAL], refusesTools: true });
      steps.push({ text: 'fine' });
      const m = model(LOCAL, { local: true });
      await assert.rejects(m.chat({ messages: [{ role: 'user', content: 'Read it' }], tools }), (e: unknown) => {
        assert.ok(e instanceof LlmProviderError, String(e));
        assert.equal(e.status, 400);
        assert.match(e.message, /registry\.ollama\.ai\/library\/qwen2\.5-coder:7b does not support tools/);
        return true;
      });
      assert.equal(server.received[0]!.endpoint, 'chat');
      assert.equal(server.received[0]!.body.max_tokens, 4096);
      // What the adapter does with the 400: the profile learns it, and the next call (read afresh) sends no tools.
      m.profile.learn('tools', 'does not support tools');
      const reply = await m.chat({ messages: [{ role: 'user', content: 'Read it' }], tools });
      assert.equal(reply.text, 'fine');
      assert.equal(server.received[1]!.body.tools, undefined);
    });

    it('that refuses response_format gets the schema in the prompt once the profile says prompt-only', async () => {
      await start({ localModels: [LOCAL], refusesResponseFormat: true });
      steps.push({ object: { verdict: 'FAIL', evidence: [], note: null, check: { kind: 'manual' } } });
      const m = model(LOCAL, { local: true });
      const ask = { messages: [system, { role: 'user' as const, content: 'Judge' }], schema: Verdict, name: 'verdict' };
      await assert.rejects(generateObject(m, ask), (e: unknown) => e instanceof LlmProviderError && e.param === 'response_format');
      m.profile.learn('response_format', 'not supported');
      const result = await generateObject(m, ask);
      assert.equal(result.value.verdict, 'FAIL');
      const body = server.received[1]!.body;
      assert.equal(body.response_format, undefined);
      assert.match(body.messages[0].content, /JSON schema/);
    });

    it('is not served on /v1/responses', async () => {
      await start({ localModels: [LOCAL] });
      await assert.rejects(model(LOCAL, { local: true, caps: { api: 'responses' } }).chat({ messages: [{ role: 'user', content: 'Hi' }] }), (e: unknown) => e instanceof LlmProviderError && e.status === 404);
    });
  });
});
