import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { capabilitiesOf, findModel, ModelProfile, shippedCatalogue } from '../../../src/llm/catalogue';
import { LlmConfig } from '../../../src/llm/config';
import { costOf } from '../../../src/llm/prices';
import { ModelRouter } from '../../../src/llm/router';
import { CachePace, MAX_CACHE_BREAKPOINTS } from '../../../src/llm/prompt-cache';
import { AnthropicModel } from '../../../src/llm/providers/anthropic';
import { OpenAiModel } from '../../../src/llm/providers/openai';
import type { ChatMessage, ChatRequest, ToolDefinition } from '../../../src/llm/types';
import { AnthropicContractServer } from '../fixtures/llm/contract-anthropic';
import { AnthropicPromptCache, OpenAiPromptCache } from '../fixtures/llm/contract-cache';
import { OpenAiContractServer } from '../fixtures/llm/contract-openai';

const catalogue = shippedCatalogue();
const entryOf = (name: string) => findModel(catalogue, name)!;
const KEY = 'sk-ant-cache-0123456789abcdef';
const today = catalogue.readOn;

// A system prompt and tools that together pass Anthropic's 1,024-token minimum, as an agent's do on a real repository.
const SYSTEM = `You are the specialist. ${'Work only inside the workspace and report what you changed. '.repeat(50)}`;
const tools: ToolDefinition[] = ['write_file', 'read_file', 'grep', 'run_command'].map((name) => ({ name, description: `The ${name} tool of the workspace.`, parameters: z.object({ path: z.string() }) }));

/** A conversation of `turns` tool rounds, as the agent loop grows it. */
function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: SYSTEM }, { role: 'user', content: 'Work this packet.' }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `toolu_${i}`, name: 'read_file', arguments: { path: `f${i}.ts` } }] });
    messages.push({ role: 'tool', toolCallId: `toolu_${i}`, name: 'read_file', content: `contents of f${i}.ts `.repeat(60) });
  }
  return messages;
}

const cacheControls = (body: any): any[] =>
  [...(body.tools ?? []), ...(Array.isArray(body.system) ? body.system : []), ...body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []))]
    .map((b: any) => b.cache_control)
    .filter(Boolean);

describe('prompt caching: Anthropic breakpoints against the caching contract fake', () => {
  let server: AnthropicContractServer;
  const claude = (name: string) =>
    new AnthropicModel({ id: name, providerId: 'anthropic', model: name, modelClass: 'frontier', profile: new ModelProfile(name, 'anthropic', entryOf(name), capabilitiesOf(entryOf(name), 'anthropic')) }, { baseURL: server.url, apiKey: KEY, maxRetries: 0 });
  const ask = (model: AnthropicModel, messages: ChatMessage[], extra: Partial<ChatRequest> = {}) => model.chat({ messages, tools, toolChoice: 'auto', ...extra });

  afterEach(async () => {
    await server?.stop();
  });

  it('reads the prefix the previous turn wrote: tools sorted, system the same bytes, at most four breakpoints', async () => {
    server = await new AnthropicContractServer({ content: () => ({ text: 'done' }), today }).start();
    const model = claude('claude-sonnet-4-6');
    const first = await ask(model, conversation(1));
    const second = await ask(model, conversation(2));
    const third = await ask(model, conversation(3));
    const [a, b, c] = server.received.map((r) => r.body);
    assert.deepEqual(a.tools.map((t: any) => t.name), ['grep', 'read_file', 'run_command', 'write_file']);
    assert.equal(JSON.stringify(a.system), JSON.stringify(b.system));
    for (const body of [a, b, c]) assert.ok(cacheControls(body).length >= 1 && cacheControls(body).length <= MAX_CACHE_BREAKPOINTS);
    assert.equal(first.usage.cachedInputTokens ?? 0, 0, 'nothing to read on the first turn');
    assert.ok((first.usage.cacheWriteTokens ?? 0) > 1024, 'the first turn writes its prefix');
    assert.ok((second.usage.cachedInputTokens ?? 0) >= (first.usage.cacheWriteTokens ?? 0), 'the second reads what the first wrote');
    assert.ok((third.usage.cachedInputTokens ?? 0) > (second.usage.cachedInputTokens ?? 0), 'the read grows with the conversation');
    // Usage as the provider reports it is what the fake billed, token for token.
    const billed = server.billed[2]!;
    assert.deepEqual(
      { read: third.usage.cachedInputTokens, written: third.usage.cacheWriteTokens ?? 0, input: third.usage.inputTokens },
      { read: billed.cacheRead, written: billed.cacheWrite5m + billed.cacheWrite1h, input: billed.fresh + billed.cacheRead + billed.cacheWrite5m + billed.cacheWrite1h },
    );
    assert.ok(Math.abs(costOf(model, third.usage).costUsd - billed.usd) < 1e-9);
  });

  it('sends no breakpoint when caching is off, and then nothing is read', async () => {
    server = await new AnthropicContractServer({ content: () => ({ text: 'done' }), today }).start();
    const model = claude('claude-sonnet-4-6');
    await ask(model, conversation(1), { cache: false });
    const second = await ask(model, conversation(2), { cache: false });
    for (const r of server.received) assert.deepEqual(cacheControls(r.body), []);
    assert.equal(second.usage.cachedInputTokens ?? 0, 0);
  });

  it('marks no prefix shorter than the minimum: 1,024 tokens, 2,048 on Haiku models', async () => {
    server = await new AnthropicContractServer({ content: () => ({ text: 'done' }), today }).start();
    await claude('claude-sonnet-4-6').chat({ messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }] });
    assert.deepEqual(cacheControls(server.received[0]!.body), [], 'a short prompt carries no breakpoint');
    // About 1,500 tokens of prefix: past Sonnet's minimum, short of Haiku's.
    const mid: ChatMessage[] = [{ role: 'system', content: 'Rules. '.repeat(850) }, { role: 'user', content: 'Hi' }];
    await claude('claude-sonnet-4-6').chat({ messages: mid });
    await claude('claude-haiku-4-5-20251001').chat({ messages: mid });
    assert.ok(cacheControls(server.received[1]!.body).length > 0);
    assert.deepEqual(cacheControls(server.received[2]!.body), []);
  });

  it('asks for the 1-hour TTL once the run has paused longer than five minutes, and the fake bills it at 2x input', async () => {
    let clock = 0;
    const pace = new CachePace(() => clock);
    assert.equal(pace.next(), '5m');
    clock += 4 * 60_000;
    assert.equal(pace.next(), '5m');
    clock += 6 * 60_000;
    assert.equal(pace.next(), '1h', 'a 5-minute entry would have expired in that gap');
    clock += 1000;
    assert.equal(pace.next(), '1h', 'the run keeps its slow pace');
    server = await new AnthropicContractServer({ content: () => ({ text: 'done' }), today }).start();
    const reply = await ask(claude('claude-sonnet-4-6'), conversation(1), { cache: { ttl: '1h' } });
    assert.ok(cacheControls(server.received[0]!.body).every((c) => c.ttl === '1h'));
    assert.equal(reply.usage.cacheWrite1hTokens, reply.usage.cacheWriteTokens);
    const price = entryOf('claude-sonnet-4-6').prices;
    assert.equal(price.cacheWrite1h, price.input * 2);
  });
});

describe('prompt caching: the contract fakes hold the documented cache rules', () => {
  it('Anthropic: expires a 5-minute entry, refreshes it on a read, and caches nothing below the minimum', () => {
    let now = 0;
    const cache = new AnthropicPromptCache(() => now);
    const entry = entryOf('claude-sonnet-4-6');
    const long = { type: 'text', text: 'x'.repeat(6000), cache_control: { type: 'ephemeral' } };
    const body = { model: entry.name, messages: [{ role: 'user', content: [long] }] };
    const first = cache.account(body, entry);
    assert.equal(first.read, 0);
    assert.ok(first.write5m > 1024);
    now += 4 * 60_000;
    assert.equal(cache.account(body, entry).read, first.write5m, 'read within five minutes');
    now += 4 * 60_000;
    assert.equal(cache.account(body, entry).read, first.write5m, 'the read refreshed it');
    now += 6 * 60_000;
    assert.equal(cache.account(body, entry).read, 0, 'expired five minutes after the last use');
    const short = { model: entry.name, messages: [{ role: 'user', content: [{ type: 'text', text: 'short', cache_control: { type: 'ephemeral' } }] }] };
    assert.deepEqual(cache.account(short, entry), { input: cache.account(short, entry).input, read: 0, write5m: 0, write1h: 0 });
  });

  it('OpenAI: nothing cached below 1,024 tokens, hits in 128-token steps, one cache per prompt_cache_key', () => {
    const cache = new OpenAiPromptCache(() => 0);
    const item = (n: number) => ({ role: 'user', content: 'y'.repeat(n * 4 - 30) });
    const short = { model: 'gpt-5.6-terra', input: [item(500)], prompt_cache_key: 'k' };
    cache.account('responses', short);
    assert.equal(cache.account('responses', short).cached, 0, 'under 1,024 tokens');
    const grown = (n: number) => ({ model: 'gpt-5.6-terra', instructions: 'z'.repeat(4000), input: Array.from({ length: n }, () => item(300)), prompt_cache_key: 'k' });
    cache.account('responses', grown(3));
    const hit = cache.account('responses', grown(4));
    assert.ok(hit.cached >= 1024 && (hit.cached - 1024) % 128 === 0, `cached ${hit.cached}`);
    assert.ok(hit.cached < hit.input);
    assert.equal(cache.account('responses', { ...grown(4), prompt_cache_key: 'another run' }).cached, 0, 'another key routes to another machine');
  });
});

describe('prompt caching: OpenAI and local servers', () => {
  let server: OpenAiContractServer;
  afterEach(async () => {
    await server?.stop();
  });
  const openai = (name: string, local = false) => {
    const entry = local ? undefined : entryOf(name);
    const profile = new ModelProfile(name, local ? 'llama' : 'openai', entry, capabilitiesOf(entry, 'openai', { local }));
    return new OpenAiModel({ id: name, providerId: profile.providerId, model: name, modelClass: local ? 'local' : 'frontier', profile }, { baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 });
  };

  it('sends the run\'s prompt_cache_key, tools sorted, and reads cached_tokens into the usage and its price', async () => {
    server = await new OpenAiContractServer({ content: () => ({ text: 'done' }), today }).start();
    const model = openai('gpt-5.6-terra');
    await model.chat({ messages: conversation(2), tools, cache: { key: 'run-1-specialist' } });
    const second = await model.chat({ messages: conversation(3), tools, cache: { key: 'run-1-specialist' } });
    const body = server.received[1]!.body;
    assert.equal(body.prompt_cache_key, 'run-1-specialist');
    assert.deepEqual(body.tools.map((t: any) => t.name), ['grep', 'read_file', 'run_command', 'write_file']);
    assert.ok((second.usage.cachedInputTokens ?? 0) >= 1024);
    assert.equal(second.usage.cachedInputTokens, server.billed[1]!.cacheRead);
    assert.ok(Math.abs(costOf(model, second.usage).costUsd - server.billed[1]!.usd) < 1e-9);
    await model.chat({ messages: conversation(1), cache: false });
    assert.equal(server.received[2]!.body.prompt_cache_key, undefined);
  });

  it("sends llama.cpp's cache_prompt to a local server, never to OpenAI", async () => {
    server = await new OpenAiContractServer({ content: () => ({ text: 'done' }), today, localModels: ['qwen2.5-coder'] }).start();
    await openai('qwen2.5-coder', true).chat({ messages: conversation(1), cache: { key: 'run-1-specialist' } });
    const body = server.received[0]!.body;
    assert.equal(body.cache_prompt, true);
    assert.equal(body.prompt_cache_key, undefined, 'a local server gets no OpenAI key');
    assert.deepEqual(server.refused, []);
  });
});

describe('prompt caching: the router gives each run and role its cache request', () => {
  const capture = () => {
    const seen: ChatRequest[] = [];
    const model = { id: 'm', providerId: 'p', kind: 'openai' as const, model: 'gpt-5.6-terra', modelClass: 'frontier' as const, displayName: 'gpt-5.6-terra', chat: async (r: ChatRequest) => (seen.push(r), { text: 'ok', toolCalls: [], stopReason: 'end' as const, usage: { inputTokens: 1, outputTokens: 1 } }) };
    return { seen, model };
  };
  const resolvedWith = (model: ReturnType<typeof capture>['model'], promptCache?: boolean) => ({
    config: LlmConfig.parse({ version: 1, providers: [{ id: 'p', kind: 'openai' }], models: [{ id: 'm', provider: 'p', model: 'gpt-5.6-terra' }], ...(promptCache === undefined ? {} : { promptCache }) }),
    slots: new Map([['m', { ok: true as const, model }]]),
    source: 'config' as const,
  });

  it('one key per run and role, the same on every call; another run has another', async () => {
    const { seen, model } = capture();
    const run = new ModelRouter(resolvedWith(model));
    for (const role of ['specialist', 'specialist', 'manager'] as const) await run.chat(role, 'STANDARD', { messages: [{ role: 'user', content: 'Hi' }] });
    await new ModelRouter(resolvedWith(model)).chat('specialist', 'STANDARD', { messages: [{ role: 'user', content: 'Hi' }] });
    const keys = seen.map((r) => (r.cache ? r.cache.key : undefined));
    assert.ok(keys[0] && keys[0] === keys[1], 'the same role of one run shares its key');
    assert.notEqual(keys[2], keys[0], 'another role has its own');
    assert.notEqual(keys[3], keys[0], 'another run has its own');
    assert.ok(seen.every((r) => r.cache && r.cache.ttl === '5m'));
  });

  it("asks for no caching when the models file says promptCache: false", async () => {
    const { seen, model } = capture();
    await new ModelRouter(resolvedWith(model, false)).chat('specialist', 'STANDARD', { messages: [{ role: 'user', content: 'Hi' }] });
    assert.equal(seen[0]!.cache, false);
  });
});
