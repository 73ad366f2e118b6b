import { CancelledError } from '../../../src/model/errors';
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { z } from 'zod';
import { MemoryLogger } from '../../../src/model/log';
import { adaptive, describeLesson, lessonToRunEvent, refusedParam } from '../../../src/llm/adapt';
import { ModelProfile, type ModelCapabilities, type ModelLesson } from '../../../src/llm/catalogue';
import { callCancelled, LlmProviderError, LlmError } from '../../../src/llm/errors';
import { fromSdkError } from '../../../src/llm/providers/sdk-errors';
import { resolveModels } from '../../../src/llm/resolve';
import type { ChatRequest, ChatResponse, LanguageModel } from '../../../src/llm/types';

/**
 * A 400 exactly as the provider code makes it from the OpenAI SDK's error (sdk-errors.ts),
 * from the error body a server sends.
 */
function http400(model: string, error: { message: string; type?: string; param?: string | null; code?: string | null }): LlmError {
  return fromSdkError(OpenAI.APIError.generate(400, { error }, undefined, new Headers()), OpenAI, { model, secrets: [] });
}

/**
 * OpenAI on a reasoning model (gpt-5 family): temperature other than 1 is refused. Body as the
 * API sends it (seen in https://github.com/microsoft/vscode/issues/253673 and
 * https://github.com/QwenLM/qwen-code/issues/921); sampling is documented as unsupported for
 * reasoning models at https://platform.openai.com/docs/guides/reasoning.
 */
const TEMPERATURE_REFUSED = { message: "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", type: 'invalid_request_error', param: 'temperature', code: 'unsupported_value' };

/** Ollama's OpenAI-compatible endpoint for a model whose template has no tools (https://github.com/ollama/ollama/issues/6027). */
const toolsRefused = (model: string) => ({ message: `registry.ollama.ai/library/${model} does not support tools`, type: 'api_error', param: null, code: null });

const CAPS: ModelCapabilities = {
  api: 'chat-completions',
  sampling: true,
  structuredOutput: 'json-schema-strict',
  strictSchemas: true,
  tools: true,
  forcedToolChoice: true,
  prefill: false,
  maxTokensParam: 'max_completion_tokens',
  catalogued: false,
};

interface SentBody {
  readonly temperature?: number;
  readonly tools?: readonly string[];
  readonly [cap: string]: unknown;
  readonly messages: ChatRequest['messages'];
}

/**
 * A provider in miniature over a server in miniature. Like the real providers it reads the
 * profile's capabilities on every call to build the body (temperature only with `sampling`,
 * tools only with `tools`, the cap under `maxTokensParam`); the server then refuses what its
 * model does not take, with the error the SDK path produces, and otherwise answers `reply`.
 */
class ServerLike implements LanguageModel {
  readonly id = 'local';
  readonly providerId = 'ollama';
  readonly kind = 'openai' as const;
  readonly modelClass = 'local' as const;
  readonly displayName: string;
  readonly price = { inputPerMTok: 1, outputPerMTok: 2 };
  readonly bodies: SentBody[] = [];

  constructor(
    readonly model: string,
    readonly profile: ModelProfile,
    private readonly refuses: (body: SentBody) => LlmError | undefined,
    private readonly reply: (body: SentBody) => string = () => 'done',
  ) {
    this.displayName = model;
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) throw callCancelled(this.displayName);
    const caps = this.profile.capabilities;
    const body: SentBody = {
      messages: request.messages,
      ...(caps.sampling && request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.tools && request.tools.length > 0 ? { tools: request.tools.map((t) => t.name) } : {}),
      [caps.maxTokensParam]: request.maxOutputTokens ?? 1000,
    };
    this.bodies.push(body);
    const refused = this.refuses(body);
    if (refused) throw refused;
    return { text: this.reply(body), toolCalls: [], stopReason: 'end', usage: { inputTokens: 10, outputTokens: 5 } };
  }

  async countTokens(text: string): Promise<number> {
    return text.length;
  }
}

function profile(model: string, caps: Partial<ModelCapabilities> = {}, learned: ModelLesson[] = []): ModelProfile {
  return new ModelProfile(model, 'ollama', undefined, { ...CAPS, ...caps }, learned);
}

const ask: ChatRequest = { messages: [{ role: 'user', content: 'observe' }], temperature: 0.2 };
const readFile = { name: 'read_file', description: 'Reads a text file of the workspace.', parameters: z.object({ path: z.string().min(1) }).strict() };

describe('adapting to what a server refuses', () => {
  it('retries once without a refused temperature, emits the lesson once, and never sends it again', async () => {
    const inner = new ServerLike('gpt-5-mini', profile('gpt-5-mini'), (b) => ('temperature' in b ? http400('gpt-5-mini', TEMPERATURE_REFUSED) : undefined));
    const logger = new MemoryLogger();
    const lessons: ModelLesson[] = [];
    const model = adaptive(inner, { logger, onLesson: (l, m) => (lessons.push(l), assert.equal(m.id, 'local')) });
    assert.equal((await model.chat(ask)).text, 'done');
    assert.deepEqual(inner.bodies.map((b) => b.temperature), [0.2, undefined], 'one refused call, one retry without it');
    assert.equal(lessons.length, 1);
    assert.deepEqual({ ...lessons[0]!, at: 'x' }, { model: 'gpt-5-mini', providerId: 'ollama', param: 'temperature', message: `HTTP 400: ${TEMPERATURE_REFUSED.message}`, at: 'x' });
    assert.ok(logger.lines.includes('info [models] adapted to gpt-5-mini: temperature refused, retried without it'), logger.lines.join('\n'));
    await model.chat(ask);
    assert.equal(inner.bodies.length, 3, 'the second call is made once');
    assert.equal(inner.bodies[2]!.temperature, undefined, 'and without the temperature');
    assert.equal(lessons.length, 1, 'the lesson is emitted once');
    assert.equal(inner.profile.capabilities.sampling, false);
  });

  it('rethrows the same refusal when it comes again after being learned', async () => {
    // A server that names temperature whatever is sent: learning cannot help, so the second 400 stands.
    const stubborn = () => http400('odd-model', TEMPERATURE_REFUSED);
    const inner = new ServerLike('odd-model', profile('odd-model'), stubborn);
    const lessons: ModelLesson[] = [];
    const model = adaptive(inner, { onLesson: (l) => lessons.push(l) });
    await assert.rejects(model.chat(ask), (e: unknown) => e instanceof LlmProviderError && e.param === 'temperature' && e.status === 400);
    assert.equal(inner.bodies.length, 2, 'retried once, not more');
    assert.equal(lessons.length, 1);

    // Learned in an earlier run (from the store): the first 400 is already the real failure.
    const known = profile('odd-model', {}, [{ model: 'odd-model', providerId: 'ollama', param: 'temperature', message: 'earlier', at: '2026-01-01T00:00:00.000Z' }]);
    const again = new ServerLike('odd-model', known, stubborn);
    const none: ModelLesson[] = [];
    await assert.rejects(adaptive(again, { onLesson: (l) => none.push(l) }).chat(ask), /Unsupported value: 'temperature'/);
    assert.equal(again.bodies.length, 1);
    assert.deepEqual(none, []);
  });

  it('sends the tools through the prompt when the server refuses tools, and validates the call', async () => {
    const inner = new ServerLike('gemma:2b', profile('gemma:2b'), (b) => (b.tools ? http400('gemma:2b', toolsRefused('gemma:2b')) : undefined), () =>
      JSON.stringify({ tool_calls: [{ name: 'read_file', arguments: { path: 'src/app.ts' } }] }),
    );
    const lessons: ModelLesson[] = [];
    const model = adaptive(inner, { onLesson: (l) => lessons.push(l) });
    const request: ChatRequest = { messages: [{ role: 'system', content: 'You are a specialist.' }, { role: 'user', content: 'fix it' }], tools: [readFile], toolChoice: 'auto' };
    const response = await model.chat(request);
    assert.equal(response.stopReason, 'tool-calls');
    assert.deepEqual(response.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'src/app.ts' } }]);
    assert.deepEqual(lessons.map((l) => l.param), ['tools']);
    assert.equal(inner.bodies.length, 2);
    assert.equal(inner.bodies[1]!.tools, undefined, 'the retry offers no native tools');
    assert.match(String(inner.bodies[1]!.messages[0]!.content), /^You are a specialist\.\n\nYou can use these tools:\n- read_file: Reads a text file/);
    await model.chat(request);
    assert.equal(inner.bodies.length, 3, 'the next call goes through the prompt at once');
    assert.equal(inner.bodies[2]!.tools, undefined);
  });

  it('rethrows a 400 it does not recognise untouched', async () => {
    const context = http400('m', { message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.", type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' });
    const badValue = http400('m', { message: "Invalid type for 'temperature': expected a decimal, but got a string instead.", type: 'invalid_request_error', param: 'temperature', code: 'invalid_type' });
    for (const error of [context, badValue]) {
      const inner = new ServerLike('m', profile('m'), () => error);
      const lessons: ModelLesson[] = [];
      await assert.rejects(adaptive(inner, { onLesson: (l) => lessons.push(l) }).chat(ask), (e: unknown) => e === error);
      assert.equal(inner.bodies.length, 1);
      assert.deepEqual(lessons, []);
      assert.equal(inner.profile.learned.length, 0);
    }
  });

  it('never adapts a cancelled call', async () => {
    const aborted = new AbortController();
    aborted.abort();
    const cancelled = new ServerLike('m', profile('m'), () => undefined);
    await assert.rejects(adaptive(cancelled).chat({ ...ask, signal: aborted.signal }), (e: unknown) => e instanceof CancelledError);
    // A refusal that arrives after the user cancelled is not retried either.
    const controller = new AbortController();
    const late = new ServerLike('m', profile('m'), () => (controller.abort(), http400('m', TEMPERATURE_REFUSED)));
    const lessons: ModelLesson[] = [];
    await assert.rejects(adaptive(late, { onLesson: (l) => lessons.push(l) }).chat({ ...ask, signal: controller.signal }), LlmProviderError);
    assert.equal(late.bodies.length, 1);
    assert.deepEqual(lessons, []);
  });

  it('lets calls in flight together learn once and all succeed', async () => {
    let waiting: (() => void)[] = [];
    const inner = new ServerLike('gpt-5-mini', profile('gpt-5-mini'), (b) => ('temperature' in b ? http400('gpt-5-mini', TEMPERATURE_REFUSED) : undefined));
    // Hold both first attempts until both were sent, so both carry the temperature.
    const chat = inner.chat.bind(inner);
    inner.chat = async (r) => {
      if (inner.bodies.length < 2) await new Promise<void>((resolve) => (waiting.push(resolve), waiting.length === 2 && (waiting.forEach((w) => w()), (waiting = []))));
      return chat(r);
    };
    const lessons: ModelLesson[] = [];
    const model = adaptive(inner, { onLesson: (l) => lessons.push(l) });
    const both = await Promise.all([model.chat(ask), model.chat(ask)]);
    assert.deepEqual(both.map((r) => r.text), ['done', 'done']);
    assert.equal(lessons.length, 1);
    assert.deepEqual(inner.bodies.map((b) => b.temperature), [0.2, 0.2, undefined, undefined]);
  });

  it('keeps the model as it is to everyone else', async () => {
    const inner = new ServerLike('m', profile('m'), () => undefined);
    const model = adaptive(inner);
    assert.ok(model instanceof ServerLike);
    for (const key of ['id', 'providerId', 'kind', 'model', 'modelClass', 'displayName', 'price', 'profile'] as const) assert.equal(model[key], inner[key], key);
    assert.equal(await model.countTokens!('four'), 4);
    assert.equal(adaptive(model), model, 'not wrapped twice');
    const plain: LanguageModel = { id: 's', providerId: 's', kind: 'scripted', model: 's', modelClass: 'local', displayName: 's', chat: inner.chat.bind(inner) };
    assert.equal(adaptive(plain), plain, 'a model without a profile is left alone');
  });

  it('reads the refused parameter from the servers’ own words', () => {
    const cases: [Parameters<typeof http400>[1], string | undefined][] = [
      [TEMPERATURE_REFUSED, 'temperature'],
      [toolsRefused('llama3-tools:latest'), 'tools'],
      // https://platform.openai.com/docs/api-reference/chat/create (max_tokens is deprecated, refused by o-series and gpt-5 models)
      [{ message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error', param: 'max_tokens', code: 'unsupported_parameter' }, 'max_tokens'],
      [{ message: 'invalid temperature: only 1 is allowed for this model', type: 'invalid_request_error' }, 'temperature'],
      [{ message: "Unsupported parameter: 'top_p' is not supported with this model.", param: 'top_p' }, 'top_p'],
      [{ message: 'tool_choice: forced tool use is not supported with this model', type: 'invalid_request_error' }, 'tool_choice'],
      [{ message: "Invalid schema for response_format 'plan': strict mode is not supported by this server", param: 'response_format' }, 'strict'],
      [{ message: "Unrecognized request argument supplied: reasoning_effort" }, 'reasoning_effort'],
      [{ message: "Unsupported value: 'reasoning.effort' does not support 'none' with this model.", param: 'reasoning.effort' }, 'reasoning_effort'],
      [{ message: "'response_format.type' : value is not one of the allowed values ['text','json_object']; json_schema is not supported" }, 'response_format'],
      [{ message: "Invalid 'messages[1].content': string too long.", param: 'messages[1].content' }, undefined],
      [{ message: 'Invalid schema for function read_file: In context=(), additionalProperties is required to be supplied and to be false.' }, undefined],
    ];
    for (const [body, expected] of cases) assert.equal(refusedParam(http400('llama3-tools:latest', body), 'llama3-tools:latest'), expected, body.message);
    assert.equal(refusedParam(new LlmProviderError('m', 'rate-limit', 'HTTP 429: temperature is not supported', 429)), undefined, 'only a 400 is a refusal');
    // Anthropic's error body (https://docs.claude.com/en/api/errors) reaches us as the SDK's JSON of it.
    const anthropic400 = (message: string) =>
      fromSdkError(Anthropic.APIError.generate(400, { type: 'error', error: { type: 'invalid_request_error', message } }, undefined, new Headers()), Anthropic, { model: 'claude-x', secrets: [] });
    assert.equal(refusedParam(anthropic400('Thinking may not be enabled when tool_choice forces tool use.')), 'tool_choice');
    assert.equal(refusedParam(anthropic400('`temperature` and `top_p` cannot both be specified for this model. Please use only one.')), 'temperature');
    assert.equal(refusedParam(anthropic400('messages: text content blocks must be non-empty')), undefined);
    // What Claude 5.x answers when sampling is sent (seen in the contract fake's rule table, contract-anthropic-rules.ts).
    assert.equal(refusedParam(anthropic400('`temperature` is deprecated for this model.')), 'temperature');
  });

  it('describes a lesson as a model run event', () => {
    const lesson: ModelLesson = { model: 'gpt-5-mini', providerId: 'openai', param: 'temperature', message: 'HTTP 400: Unsupported value', at: '2026-05-01T00:00:00.000Z' };
    assert.deepEqual(lessonToRunEvent(lesson, { runId: 'run-1', seq: 3, at: lesson.at, phase: 'OBSERVE', role: 'manager' }), {
      runId: 'run-1',
      seq: 3,
      at: lesson.at,
      phase: 'OBSERVE',
      kind: 'model',
      message: describeLesson(lesson),
      role: 'manager',
      model: 'gpt-5-mini',
      inputTokens: 0,
      outputTokens: 0,
      costUsd: 0,
    });
    assert.equal(describeLesson(lesson), 'gpt-5-mini (openai) refused temperature; it is no longer sent to this model: "HTTP 400: Unsupported value"');
  });

  describe('through resolveModels and the real OpenAI provider', () => {
    let server: http.Server;
    let baseUrl: string;
    const seen: { tools: boolean; system: string }[] = [];

    before(async () => {
      // An Ollama-like server: tools refused with Ollama's 400 body (https://github.com/ollama/ollama/issues/6027),
      // otherwise a Chat Completions reply (https://platform.openai.com/docs/api-reference/chat/object).
      server = http.createServer((req, res) => {
        let raw = '';
        req.on('data', (c) => (raw += c));
        req.on('end', () => {
          const body = JSON.parse(raw) as { model: string; tools?: unknown[]; messages: { role: string; content: string }[] };
          seen.push({ tools: Array.isArray(body.tools), system: body.messages[0]?.role === 'system' ? body.messages[0].content : '' });
          res.setHeader('content-type', 'application/json');
          if (body.tools) {
            res.statusCode = 400;
            res.end(JSON.stringify({ error: toolsRefused(body.model) }));
            return;
          }
          const content = JSON.stringify({ tool_calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] });
          res.end(
            JSON.stringify({
              id: 'chatcmpl-1',
              object: 'chat.completion',
              created: 1,
              model: body.model,
              choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 12, completion_tokens: 7, total_tokens: 19 },
            }),
          );
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    });

    after(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('gets the tool call from a local server that refuses tools, and hands the lesson over', async () => {
      const lessons: ModelLesson[] = [];
      const resolved = await resolveModels(undefined, { env: { OPENAI_BASE_URL: baseUrl }, model: 'qwen2.5-coder:7b', onLesson: (l) => lessons.push(l) });
      const slot = [...resolved.slots.values()][0]!;
      assert.ok(slot.ok);
      const response = await slot.model.chat({ messages: [{ role: 'user', content: 'look around' }], tools: [readFile] });
      assert.deepEqual(response.toolCalls, [{ id: 'call_1', name: 'read_file', arguments: { path: 'README.md' } }]);
      assert.deepEqual(response.usage, { inputTokens: 12, outputTokens: 7 });
      assert.deepEqual(lessons.map((l) => [l.providerId, l.model, l.param]), [['openai', 'qwen2.5-coder:7b', 'tools']]);
      assert.match(lessons[0]!.message, /does not support tools/);
      assert.deepEqual(seen.map((s) => s.tools), [true, false]);
      assert.match(seen[1]!.system, /You can use these tools:/);

      // The next run, with the lesson from the store: tools go through the prompt at once.
      const next = await resolveModels(undefined, { env: { OPENAI_BASE_URL: baseUrl }, model: 'qwen2.5-coder:7b', lessons });
      const nextSlot = [...next.slots.values()][0]!;
      assert.ok(nextSlot.ok);
      await nextSlot.model.chat({ messages: [{ role: 'user', content: 'look again' }], tools: [readFile] });
      assert.deepEqual(seen.map((s) => s.tools), [true, false, false]);
    });
  });
});
