import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { BudgetLedger } from '../../../src/llm/budgets';
import { ModelProfile, type ModelCapabilities } from '../../../src/llm/catalogue';
import { LlmRefusalError, LlmTruncatedError, StructuredOutputError } from '../../../src/llm/errors';
import { parseToolArguments, toJsonSchema, toStrictJsonSchema, validateJsonText } from '../../../src/llm/json-schema';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { generateObject } from '../../../src/llm/structured';
import type { ChatRequest, ChatResponse, LanguageModel } from '../../../src/llm/types';
import type { UsageRecord } from '../../../src/llm/usage';

const Verdict = z.object({ verdict: z.enum(['PASS', 'FAIL']), evidence: z.string().min(1) });
const messages = [{ role: 'user' as const, content: 'Judge ISC-1' }];

/** A scripted model that also keeps every request it saw. */
function recording(yaml: string) {
  const model = ScriptedModel.fromText('structured.yaml', yaml);
  const seen: ChatRequest[] = [];
  const chat = model.chat.bind(model);
  model.chat = (request) => (seen.push(request), chat(request));
  return { model, seen };
}

describe('llm structured output', () => {
  it('returns the value when the first output is valid', async () => {
    const { model, seen } = recording('steps:\n  - object: { verdict: PASS, evidence: exit 0 }\n    usage: { inputTokens: 10, outputTokens: 4 }\n');
    const result = await generateObject(model, { messages, schema: Verdict, name: 'verdict' });
    assert.deepEqual(result.value, { verdict: 'PASS', evidence: 'exit 0' });
    assert.equal(result.invalidOutputs, 0);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!.responseFormat?.name, 'verdict');
  });

  it('repairs an invalid output with one retry that shows the model its problems', async () => {
    const { model, seen } = recording('steps:\n  - text: \'{"verdict":"MAYBE"}\'\n    usage: { inputTokens: 10, outputTokens: 4 }\n  - object: { verdict: FAIL, evidence: grep found nothing }\n    usage: { inputTokens: 30, outputTokens: 6 }\n');
    const usage: UsageRecord[] = [];
    const result = await generateObject(model, { messages, schema: Verdict, name: 'verdict' }, { onUsage: (u) => usage.push(u) });
    assert.deepEqual(result.value, { verdict: 'FAIL', evidence: 'grep found nothing' });
    assert.equal(result.invalidOutputs, 1);
    assert.deepEqual(usage.map((u) => u.inputTokens), [10, 30], 'both attempts are accounted');
    const retry = seen[1]!.messages;
    assert.equal(retry.length, 3);
    assert.deepEqual(retry[1], { role: 'assistant', content: '{"verdict":"MAYBE"}' });
    assert.match(retry[2]!.content, /not a valid "verdict"/);
    assert.match(retry[2]!.content, /verdict: Invalid option/);
    assert.match(retry[2]!.content, /evidence:/);
  });

  it('throws a typed error after two invalid outputs', async () => {
    const { model } = recording('steps:\n  - text: not json at all\n  - text: \'{"verdict":"PASS"}\'\n');
    await assert.rejects(generateObject(model, { messages, schema: Verdict, name: 'verdict' }), (e: unknown) => {
      assert.ok(e instanceof StructuredOutputError);
      assert.equal(e.attempts, 2);
      assert.equal(e.schemaName, 'verdict');
      assert.deepEqual(e.issues.map((i) => i.path), ['evidence']);
      assert.match(e.message, /^scripted: structured gave no valid "verdict" in 2 attempts/);
      return true;
    });
  });

  it('accepts JSON wrapped in a markdown fence, which unconstrained local models like to write', () => {
    const r = validateJsonText(Verdict, '```json\n{"verdict":"PASS","evidence":"ok"}\n```');
    assert.deepEqual(r, { ok: true, value: { verdict: 'PASS', evidence: 'ok' } });
    assert.equal(validateJsonText(Verdict, '{oops').ok, false);
  });

  it('generates closed JSON schemas from zod, and strict ones where every property is required', () => {
    const schema = toJsonSchema(Verdict);
    assert.equal(schema.$schema, undefined);
    assert.equal(schema.additionalProperties, false);
    assert.equal(toJsonSchema(Verdict), schema, 'cached per schema');
    const strict = toStrictJsonSchema(z.object({ a: z.string().optional(), b: z.object({ c: z.number() }).passthrough() }));
    assert.deepEqual(strict, {
      type: 'object',
      properties: { a: { anyOf: [{ type: 'string' }, { type: 'null' }] }, b: { type: 'object', properties: { c: { type: 'number' } }, required: ['c'], additionalProperties: false } },
      required: ['a', 'b'],
      additionalProperties: false,
    });
  });

  it('validates a tool call against its tool schema', () => {
    const tool = { name: 'read_file', description: 'Reads', parameters: z.object({ path: z.string() }) };
    assert.deepEqual(parseToolArguments(tool, { id: '1', name: 'read_file', arguments: { path: 'a' } }), { ok: true, value: { path: 'a' } });
    const bad = parseToolArguments(tool, { id: '1', name: 'read_file', arguments: { path: 1 } });
    assert.equal(bad.ok, false);
    assert.equal(parseToolArguments(tool, { id: '1', name: 'other', arguments: {} }).ok, false);
  });

  describe('a reply cut off at the output cap', () => {
    const CAPS: ModelCapabilities = { api: 'responses', sampling: false, structuredOutput: 'json-schema-strict', strictSchemas: true, tools: true, forcedToolChoice: true, prefill: false, maxTokensParam: 'max_output_tokens', maxOutputTokens: 3000, catalogued: true };

    /**
     * A model whose answer needs `needs` output tokens: under that cap it is cut off, which the
     * providers report as `LlmTruncatedError` for structured requests (OpenAI `status: incomplete`
     * with `max_output_tokens`, https://platform.openai.com/docs/api-reference/responses/object;
     * Anthropic `stop_reason: max_tokens`, https://docs.claude.com/en/api/handling-stop-reasons).
     */
    function cutOffUnder(needs: number, options: { profile?: boolean; refuse?: boolean } = {}): LanguageModel & { caps: (number | undefined)[] } {
      const caps: (number | undefined)[] = [];
      return {
        id: 'big',
        providerId: 'openai',
        kind: 'openai',
        model: 'gpt-test',
        modelClass: 'frontier',
        displayName: 'gpt-test',
        price: { inputPerMTok: 1, outputPerMTok: 1 },
        ...(options.profile === false ? {} : { profile: new ModelProfile('gpt-test', 'openai', undefined, CAPS) }),
        caps,
        async chat(request: ChatRequest): Promise<ChatResponse> {
          caps.push(request.maxOutputTokens);
          if (options.refuse) throw new LlmRefusalError('gpt-test', 'I cannot help with that.');
          const cap = request.maxOutputTokens ?? 4096;
          if (cap < needs) throw new LlmTruncatedError('gpt-test', cap, 'max_output_tokens');
          return { text: '{"verdict":"PASS","evidence":"long"}', toolCalls: [], stopReason: 'end', usage: { inputTokens: 10, outputTokens: needs } };
        },
      };
    }

    it('asks once more at twice the cap', async () => {
      const model = cutOffUnder(1500);
      const result = await generateObject(model, { messages, schema: Verdict, name: 'verdict', maxOutputTokens: 1000 });
      assert.deepEqual(result.value, { verdict: 'PASS', evidence: 'long' });
      assert.deepEqual(model.caps, [1000, 2000]);
      assert.equal(result.invalidOutputs, 0, 'a cut-off reply is not an invalid output');
      assert.equal(result.usage.length, 1);
    });

    it("stays within the model's own maximum", async () => {
      const model = cutOffUnder(2500);
      await generateObject(model, { messages, schema: Verdict, name: 'verdict', maxOutputTokens: 2000 });
      assert.deepEqual(model.caps, [2000, 3000]);
      const atMax = cutOffUnder(5000);
      await assert.rejects(generateObject(atMax, { messages, schema: Verdict, name: 'verdict', maxOutputTokens: 3000 }), LlmTruncatedError);
      assert.deepEqual(atMax.caps, [3000], 'no larger cap to ask with');
    });

    it('throws when the reply is cut off again', async () => {
      const model = cutOffUnder(10_000, { profile: false });
      await assert.rejects(generateObject(model, { messages, schema: Verdict, name: 'verdict', maxOutputTokens: 1000 }), (e: unknown) => {
        assert.ok(e instanceof LlmTruncatedError);
        assert.equal(e.maxOutputTokens, 2000);
        return true;
      });
      assert.deepEqual(model.caps, [1000, 2000]);
    });

    it('never repairs a refusal', async () => {
      const model = cutOffUnder(10, { refuse: true });
      await assert.rejects(generateObject(model, { messages, schema: Verdict, name: 'verdict' }), LlmRefusalError);
      assert.equal(model.caps.length, 1);
    });

    it('makes the larger call through the budget guard, which holds it to what the cap leaves', async () => {
      const ledger = new BudgetLedger({ call: { tokens: 1500 }, phase: {}, run: {} });
      const model = cutOffUnder(1200);
      const result = await generateObject(ledger.guard(model), { messages, schema: Verdict, name: 'verdict', maxOutputTokens: 1000 });
      assert.equal(result.value.verdict, 'PASS');
      assert.equal(model.caps.length, 2);
      assert.equal(model.caps[0], 1000);
      assert.ok(model.caps[1]! > 1200 && model.caps[1]! < 1500, `the retry's cap ${model.caps[1]} is twice 1000, cut to the call cap of 1500 tokens less the input`);
    });
  });
});
