import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { OUTPUT_SCHEMAS } from '../../../../src/algorithm/outputs';
import { capabilitiesOf, extendCatalogue, findModel, ModelProfile, shippedCatalogue, todayIso, type CatalogueEntry } from '../../../../src/llm/catalogue';
import { LlmProviderError, LlmRefusalError, LlmTruncatedError } from '../../../../src/llm/errors';
import { AnthropicModel } from '../../../../src/llm/providers/anthropic';
import { generateObject } from '../../../../src/llm/structured';
import type { ChatMessage, StreamPart } from '../../../../src/llm/types';
import { AnthropicContractServer, type AnthropicContractOptions } from '../../fixtures/llm/contract-anthropic';
import { HEADER_RULES, MODEL_RULES, RULES } from '../../fixtures/llm/contract-anthropic-rules';
import { contentQueue, type ContentStep } from '../../fixtures/llm/contract-content';

const KEY = 'sk-ant-contract-0123456789abcdef';
const catalogue = shippedCatalogue();
const today = todayIso();
const entryOf = (name: string): CatalogueEntry => {
  const entry = findModel(catalogue, name);
  if (!entry) throw new Error(`${name} is not in the shipped catalogue`);
  return entry;
};

/** One current model per catalogued Anthropic family, and the two the issue names. */
const current = catalogue.models.filter((m) => m.provider === 'anthropic' && !(m.shutdown && m.shutdown <= today));
const families = [...new Set(current.map((m) => m.family))];
const REPRESENTATIVES = [...new Set([...families.map((f) => current.find((m) => m.family === f)!.name), 'claude-sonnet-4-6', 'claude-opus-5-5'])];

const Plan = z.object({ steps: z.array(z.string().min(1)).min(1), risk: z.enum(['low', 'high']), note: z.string().optional() });
const ReadFile = z.object({ path: z.string().min(1) });
const tools = [{ name: 'read_file', description: 'Reads a file of the workspace. Use it to see a file before answering.', parameters: ReadFile }];
const ask: ChatMessage[] = [
  { role: 'system', content: 'You are the planner.' },
  { role: 'user', content: 'Read a.ts, then plan.' },
];

/** A profile whose capabilities are an edited copy of a catalogue entry: the "wrong request" a stale catalogue would cause. */
const claimedProfile = (name: string, edit: Partial<CatalogueEntry>) => {
  const entry = { ...entryOf(name), ...edit };
  return new ModelProfile(name, 'anthropic', entry, capabilitiesOf(entry, 'anthropic'));
};

describe('Anthropic provider against the contract fake (documented rules per catalogued model)', () => {
  let server: AnthropicContractServer;
  const serve = async (steps: readonly ContentStep[], options: Partial<AnthropicContractOptions> = {}) => {
    server = await new AnthropicContractServer({ content: contentQueue(steps), today, ...options }).start();
    return server;
  };
  const claude = (name: string, profile?: ModelProfile) =>
    new AnthropicModel({ id: name, providerId: 'anthropic', model: name, modelClass: 'frontier', ...(profile ? { profile } : {}) }, { baseURL: server.url, apiKey: KEY, maxRetries: 0 });

  afterEach(async () => {
    await server?.stop();
  });

  it('covers every current Anthropic family of the catalogue', () => {
    assert.ok(families.length >= 3, `families: ${families.join(', ')}`);
    for (const family of families) assert.ok(REPRESENTATIVES.some((n) => entryOf(n).family === family), family);
  });

  for (const name of REPRESENTATIVES) {
    describe(name, () => {
      const entry = entryOf(name);

      it(`gets structured output in the mode its entry names (${entry.structuredOutput})`, async () => {
        await serve([{ object: { steps: ['read a.ts', 'plan'], risk: 'low' } }]);
        const result = await generateObject(claude(name), { messages: ask, schema: Plan, name: 'plan', maxOutputTokens: 2000 });
        assert.deepEqual(result.value, { steps: ['read a.ts', 'plan'], risk: 'low' });
        assert.deepEqual(server.refused, []);
        const body = server.received[0]!.body;
        assert.equal(Boolean(body.output_config?.format), entry.structuredOutput === 'anthropic-output-format');
        assert.equal(body.tool_choice?.type === 'tool', entry.structuredOutput === 'forced-tool' && entry.forcedToolChoice);
        assert.equal('temperature' in body, false);
      });

      it(`makes a tool call with toolChoice 'required' (${entry.forcedToolChoice ? 'forced' : 'not forced: auto'}) and carries the turn back`, async () => {
        await serve([{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.ts' } }] }, { text: 'a.ts exports nothing.' }]);
        const model = claude(name);
        const first = await model.chat({ messages: ask, tools, toolChoice: 'required', temperature: 0.2 });
        assert.equal(first.stopReason, 'tool-calls');
        assert.deepEqual(first.toolCalls.map((c) => [c.name, c.arguments]), [['read_file', { path: 'a.ts' }]]);
        assert.match(first.toolCalls[0]!.id, /^toolu_/);
        const sent = server.received[0]!.body;
        assert.deepEqual(sent.tool_choice, entry.forcedToolChoice ? { type: 'any' } : { type: 'auto' });
        assert.equal(sent.temperature, entry.sampling ? 0.2 : undefined);
        const second = await model.chat({
          messages: [...ask, { role: 'assistant', content: first.text, toolCalls: first.toolCalls }, { role: 'tool', toolCallId: first.toolCalls[0]!.id, name: 'read_file', content: 'export {}' }],
          tools,
        });
        assert.equal(second.text, 'a.ts exports nothing.');
        assert.equal(second.stopReason, 'end');
        assert.deepEqual(server.refused, []);
      });
    });
  }

  it('a profile claiming a forced tool choice for claude-opus-5-5 sends one, and the fake refuses it with 400', async () => {
    await serve([]);
    const wrong = claude('claude-opus-5-5', claimedProfile('claude-opus-5-5', { forcedToolChoice: true }));
    await assert.rejects(wrong.chat({ messages: ask, tools, toolChoice: 'required' }), (e: unknown) => {
      assert.ok(e instanceof LlmProviderError, String(e));
      assert.equal(e.status, 400);
      assert.equal(e.failure, 'bad-request');
      assert.match(e.message, /tool_choice: type \\"tool\\" and \\"any\\" are not supported for this model/);
      return true;
    });
    assert.deepEqual(server.refused.map((r) => r.rule), ['forced-tool-choice']);
  });

  it('a profile claiming sampling parameters for claude-opus-5-5 sends temperature, and the fake refuses it with 400', async () => {
    await serve([]);
    const wrong = claude('claude-opus-5-5', claimedProfile('claude-opus-5-5', { sampling: true }));
    await assert.rejects(wrong.chat({ messages: ask, temperature: 0 }), (e: unknown) => e instanceof LlmProviderError && e.status === 400 && /temperature/.test(e.message));
    assert.deepEqual(server.refused.map((r) => r.rule), ['sampling']);
  });

  it('a model that forgets the thinking blocks of its tool call is refused on claude-opus-5-5', async () => {
    await serve([{ toolCalls: [{ name: 'read_file', arguments: { path: 'a.ts' } }] }]);
    const first = await claude('claude-opus-5-5').chat({ messages: ask, tools });
    assert.equal(first.toolCalls.length, 1);
    // A new model object has not seen the reply, so it cannot send its thinking blocks back.
    const history: ChatMessage[] = [...ask, { role: 'assistant', content: first.text, toolCalls: first.toolCalls }, { role: 'tool', toolCallId: first.toolCalls[0]!.id, name: 'read_file', content: 'x' }];
    await assert.rejects(claude('claude-opus-5-5').chat({ messages: history, tools }), (e: unknown) => e instanceof LlmProviderError && e.status === 400 && /cannot be modified/.test(e.message));
    assert.deepEqual(server.refused.map((r) => r.rule), ['thinking-blocks-unchanged']);
  });

  it('a structured call cut off at max_tokens is a typed truncation with the cap it was made with', async () => {
    await serve([{ truncated: '{"steps":["read' }]);
    await assert.rejects(claude('claude-opus-5-5').chat({ messages: ask, responseFormat: { name: 'plan', schema: Plan }, maxOutputTokens: 64 }), (e: unknown) => {
      assert.ok(e instanceof LlmTruncatedError, String(e));
      assert.equal(e.maxOutputTokens, 64);
      assert.equal(e.reason, 'max_tokens');
      return true;
    });
    assert.equal(server.received[0]!.body.max_tokens, 64);
  });

  it('plain chat cut off at max_tokens returns what came with a max-tokens stop', async () => {
    await serve([{ truncated: 'The plan is' }]);
    const reply = await claude('claude-sonnet-4-6').chat({ messages: ask, maxOutputTokens: 5 });
    assert.equal(reply.stopReason, 'max-tokens');
    assert.equal(reply.text, 'The plan is');
  });

  it('a refusal is a typed refusal, for structured and plain calls alike, and nothing repairs it', async () => {
    await serve([{ refusal: 'I will not help with this.' }, { refusal: '' }]);
    await assert.rejects(generateObject(claude('claude-opus-5-5'), { messages: ask, schema: Plan, name: 'plan' }), (e: unknown) => e instanceof LlmRefusalError && e.refusal === 'I will not help with this.');
    assert.equal(server.received.length, 1, 'no repair turn follows a refusal');
    await assert.rejects(claude('claude-opus-5-5').chat({ messages: ask }), LlmRefusalError);
  });

  it('streams text, and a tool call whose thinking blocks go back on the next turn', async () => {
    await serve([{ text: 'Let me look.', toolCalls: [{ name: 'read_file', arguments: { path: 'b.ts' } }] }, { text: 'Done reading.' }]);
    const model = claude('claude-opus-5-5');
    const parts: StreamPart[] = [];
    const first = await model.chat({ messages: ask, tools, onPart: (p) => parts.push(p) });
    assert.equal(server.received[0]!.body.stream, true);
    assert.equal(parts.map((p) => (p.type === 'text' ? p.text : '')).join(''), 'Let me look.');
    const call = parts.find((p) => p.type === 'tool-call');
    assert.ok(call && call.type === 'tool-call');
    assert.deepEqual(call.call.arguments, { path: 'b.ts' });
    assert.equal(first.text, 'Let me look.');
    assert.equal(first.stopReason, 'tool-calls');
    const streamed: string[] = [];
    const second = await model.chat({
      messages: [...ask, { role: 'assistant', content: first.text, toolCalls: first.toolCalls }, { role: 'tool', toolCallId: call.call.id, name: 'read_file', content: 'export const b = 1;' }],
      tools,
      onPart: (p) => p.type === 'text' && streamed.push(p.text),
    });
    assert.equal(second.text, 'Done reading.');
    assert.equal(streamed.join(''), 'Done reading.');
    assert.deepEqual(server.refused, []);
    const back = server.received[1]!.body.messages[1].content;
    assert.equal(back[0].type, 'thinking', 'the thinking block leads the assistant turn, as it came');
  });

  it('streamed, a refusal and a cut-off structured answer are the same typed errors', async () => {
    await serve([{ refusal: 'No.' }, { truncated: '{"steps":["a' }]);
    const onPart = () => undefined;
    await assert.rejects(claude('claude-sonnet-5-5').chat({ messages: ask, onPart }), (e: unknown) => e instanceof LlmRefusalError && e.refusal === 'No.');
    await assert.rejects(claude('claude-sonnet-5-5').chat({ messages: ask, onPart, responseFormat: { name: 'plan', schema: Plan }, maxOutputTokens: 30 }), (e: unknown) => e instanceof LlmTruncatedError && e.maxOutputTokens === 30);
    assert.deepEqual(server.received.map((r) => r.body.stream), [true, true]);
  });

  it('every structured-output schema of the product fits the JSON outputs subset and its complexity limits', async () => {
    const names = Object.keys(OUTPUT_SCHEMAS);
    await serve(names.map(() => ({ object: {} })));
    for (const [name, schema] of Object.entries(OUTPUT_SCHEMAS)) {
      await claude('claude-sonnet-5-5').chat({ messages: ask, responseFormat: { name: name.replace(/-/g, '_'), schema } });
    }
    assert.deepEqual(server.refused, []);
    assert.equal(server.received.filter((r) => r.body.output_config?.format).length, names.length);
  });

  it('takes the effort the catalogue names to output_config.effort and caps max_tokens at the model maximum', async () => {
    await serve([{ text: 'ok' }]);
    const profile = claimedProfile('claude-opus-5-5', { reasoningEffort: 'low' });
    await claude('claude-opus-5-5', profile).chat({ messages: ask, maxOutputTokens: 1_000_000 });
    assert.deepEqual(server.received[0]!.body.output_config, { effort: 'low' });
    assert.equal(server.received[0]!.body.max_tokens, entryOf('claude-opus-5-5').maxOutputTokens);
  });

  it('a forced-tool model answers through the forced tool, and one that may not be forced gets the schema in the prompt', async () => {
    await serve([{ object: { steps: ['a'], risk: 'high' } }, { object: { steps: ['b'], risk: 'low' } }], {
      catalogue: extendCatalogue(catalogue, [{ ...entryOf('claude-opus-5-5'), structuredOutput: 'forced-tool' }, { ...entryOf('claude-sonnet-4-6'), structuredOutput: 'forced-tool' }]),
    });
    const forced = claimedProfile('claude-sonnet-4-6', { structuredOutput: 'forced-tool' });
    const prompted = claimedProfile('claude-opus-5-5', { structuredOutput: 'forced-tool' });
    assert.deepEqual((await generateObject(claude('claude-sonnet-4-6', forced), { messages: ask, schema: Plan, name: 'plan' })).value, { steps: ['a'], risk: 'high' });
    assert.deepEqual((await generateObject(claude('claude-opus-5-5', prompted), { messages: ask, schema: Plan, name: 'plan' })).value, { steps: ['b'], risk: 'low' });
    assert.deepEqual(server.received[0]!.body.tool_choice, { type: 'tool', name: 'plan' });
    assert.equal(server.received[1]!.body.tool_choice, undefined);
    assert.match(server.received[1]!.body.system, /JSON schema/);
    assert.deepEqual(server.refused, []);
  });
});

describe('Anthropic contract fake: each rule refuses its own violation', () => {
  let server: AnthropicContractServer;
  before(async () => {
    server = await new AnthropicContractServer({
      content: () => ({ text: 'fine' }),
      today,
      // A Claude model whose entry has no JSON outputs, and one past its shutdown date, for the rules that need them.
      catalogue: extendCatalogue(shippedCatalogue(), [
        { ...entryOf('claude-opus-4-6'), structuredOutput: 'forced-tool' },
        { ...entryOf('claude-opus-4-6'), name: 'claude-retired-1', aliases: [], shutdown: '2026-01-01' },
      ]),
    }).start();
  });
  after(async () => {
    await server.stop();
  });

  const headers = { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' };
  const base = () => ({ model: 'claude-opus-5-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] as any[] });
  const tool = { name: 'read_file', input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] } };
  const send = (body: unknown, h: Record<string, string> = headers) => fetch(`${server.url}/v1/messages`, { method: 'POST', headers: h, body: JSON.stringify(body) });
  const withoutHeader = (name: string) => Object.fromEntries(Object.entries(headers).filter(([k]) => k !== name));
  const schemaOf = (schema: unknown) => ({ output_config: { format: { type: 'json_schema', schema } } });
  const manyOptional = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i}`, { type: 'string' }]));

  const cases: { rule: string; body?: Record<string, unknown>; headers?: Record<string, string> }[] = [
    { rule: 'credential', headers: withoutHeader('x-api-key') },
    { rule: 'anthropic-version', headers: withoutHeader('anthropic-version') },
    { rule: 'model-known', body: { ...base(), model: 'claude-nonesuch-9' } },
    { rule: 'model-retired', body: { ...base(), model: 'claude-retired-1' } },
    { rule: 'max-tokens-required', body: { ...base(), max_tokens: undefined } },
    { rule: 'max-tokens-cap', body: { ...base(), max_tokens: 500_000 } },
    { rule: 'messages-present', body: { ...base(), messages: [] } },
    { rule: 'messages-roles', body: { ...base(), messages: [{ role: 'assistant', content: 'Hello' }, { role: 'user', content: 'Hi' }] } },
    { rule: 'content-not-empty', body: { ...base(), messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] } },
    { rule: 'no-prefill', body: { ...base(), messages: [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: '{' }] } },
    {
      rule: 'tool-results-follow-calls',
      body: { ...base(), tools: [tool], messages: [{ role: 'user', content: 'Read' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_x', name: 'read_file', input: { path: 'a' } }] }, { role: 'user', content: 'and?' }] },
    },
    { rule: 'tool-definitions', body: { ...base(), tools: [{ ...tool, input_schema: { type: 'string' } }] } },
    { rule: 'tool-choice-names-a-tool', body: { ...base(), model: 'claude-sonnet-4-6', tools: [tool], tool_choice: { type: 'tool', name: 'write_file' } } },
    { rule: 'forced-tool-choice', body: { ...base(), tools: [tool], tool_choice: { type: 'any' } } },
    { rule: 'sampling', body: { ...base(), temperature: 0.2 } },
    { rule: 'temperature-range', body: { ...base(), model: 'claude-sonnet-4-6', temperature: 1.5 } },
    { rule: 'output-format-model', body: { ...base(), model: 'claude-opus-4-6', ...schemaOf({ type: 'object', properties: {}, additionalProperties: false }) } },
    { rule: 'output-format-shape', body: { ...base(), output_config: { format: { type: 'json', schema: {} } } } },
    { rule: 'schema-subset', body: { ...base(), ...schemaOf({ type: 'object', properties: { a: { type: 'string', minLength: 1 } }, required: ['a'], additionalProperties: false }) } },
    { rule: 'schema-subset', body: { ...base(), ...schemaOf({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }) } },
    { rule: 'schema-complexity', body: { ...base(), ...schemaOf({ type: 'object', properties: manyOptional, required: [], additionalProperties: false }) } },
    { rule: 'effort', body: { ...base(), model: 'claude-haiku-4-5', output_config: { effort: 'low' } } },
    { rule: 'thinking-always-on', body: { ...base(), thinking: { type: 'disabled' } } },
    // Prompt caching: five breakpoints, an unknown TTL, a 1h breakpoint after a 5m one, a breakpoint on empty text.
    { rule: 'cache-control', body: { ...base(), messages: [{ role: 'user', content: Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `part ${i}`, cache_control: { type: 'ephemeral' } })) }] } },
    { rule: 'cache-control', body: { ...base(), system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral', ttl: '10m' } }] } },
    {
      rule: 'cache-control',
      body: { ...base(), system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }], messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '1h' } }] }] },
    },
  ];

  it('answers a request that keeps every rule', async () => {
    const res = await send(base());
    assert.equal(res.status, 200);
    const body = (await res.json()) as any;
    assert.equal(body.type, 'message');
    assert.equal(body.stop_reason, 'end_turn');
    assert.deepEqual(body.content.map((b: any) => b.type), ['thinking', 'text']);
  });

  it('has a case here for every rule of the table', () => {
    const tested = new Set(cases.map((c) => c.rule));
    const untested = [...HEADER_RULES, ...MODEL_RULES, ...RULES].map((r) => r.id).filter((id) => !tested.has(id) && id !== 'thinking-blocks-unchanged');
    assert.deepEqual(untested, [], 'thinking-blocks-unchanged is proven through the provider above');
    for (const rule of [...HEADER_RULES, ...MODEL_RULES, ...RULES]) assert.match(rule.doc, /^https:\/\/platform\.claude\.com\/docs\/en\//, rule.id);
  });

  for (const c of cases) {
    it(`refuses a request that breaks "${c.rule}"`, async () => {
      const before = server.refused.length;
      const res = await send(c.body ?? base(), c.headers);
      const rule = [...HEADER_RULES, ...MODEL_RULES, ...RULES].find((r) => r.id === c.rule)!;
      assert.equal(res.status, rule.status);
      assert.match(res.headers.get('request-id') ?? '', /^req_/);
      const body = (await res.json()) as any;
      assert.equal(body.type, 'error');
      assert.equal(body.error.type, rule.errorType);
      assert.equal(typeof body.error.message, 'string');
      assert.deepEqual(server.refused.slice(before).map((r) => r.rule), [c.rule]);
    });
  }
});
