import * as assert from 'node:assert/strict';
import { transformJSONSchema as anthropicTransform } from '@anthropic-ai/sdk/lib/transform-json-schema';
import { toStrictJsonSchema as openAiStrict } from 'openai/lib/transform';
import { z } from 'zod';
import { TOOL_DEFINITIONS } from '../../../src/agent/tools';
import { OUTPUT_SCHEMAS, Verdict } from '../../../src/algorithm/outputs';
import { impliedRating } from '../../../src/learning/implied-rating';
import { reflectOnRun } from '../../../src/learning/reflection';
import { generateObject } from '../../../src/llm/structured';
import { parseToolArguments, toJsonSchema, toStrictJsonSchema, validateJsonText, validateValue, type JsonSchema } from '../../../src/llm/json-schema';
import type { ChatRequest, ChatResponse, LanguageModel } from '../../../src/llm/types';

type Schemas = Map<string, z.ZodType>;

/** A model that keeps the output schema of every structured request and answers with nothing useful. */
function schemaCatcher(into: Schemas): LanguageModel {
  return {
    id: 'catcher',
    providerId: 'test',
    kind: 'scripted',
    model: 'catcher',
    modelClass: 'frontier',
    displayName: 'catcher',
    async chat(request: ChatRequest): Promise<ChatResponse> {
      if (request.responseFormat) into.set(`generateObject "${request.responseFormat.name}"`, request.responseFormat.schema);
      return { text: '{}', toolCalls: [], stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
}

/**
 * Every schema the product sends a model: the manager's and specialist's outputs, the
 * verifier's verdict, the agent's tools, and the learning calls' own schemas (those are not
 * exported, so they are caught from the requests the learning code makes).
 */
async function productSchemas(): Promise<Schemas> {
  const all: Schemas = new Map();
  for (const [name, schema] of Object.entries(OUTPUT_SCHEMAS)) all.set(`output "${name}"`, schema);
  all.set('verifier Verdict', Verdict);
  for (const tool of Object.values(TOOL_DEFINITIONS)) all.set(`tool ${tool.name}`, tool.parameters);
  const model = schemaCatcher(all);
  await impliedRating('looks fine', 'a run', model).catch(() => undefined);
  await reflectOnRun(
    { runId: 'run-1', request: 'r', effort: 'STANDARD', state: 'COMPLETE', finishedAt: '2026-01-01T00:00:00.000Z', budgetSeconds: 60, elapsedMs: 1000, criteria: [] },
    { model, version: 'test' },
  );
  return all;
}

/** What the Anthropic SDK's transform takes off (besides nothing else): the `type` beside an `enum` or `const`. */
function withoutTypeBesideLiterals(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutTypeBesideLiterals);
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  const n = node as Record<string, unknown>;
  const literal = 'enum' in n || 'const' in n;
  for (const [k, v] of Object.entries(n)) {
    if (k === 'type' && literal) continue;
    out[k] = k === 'enum' || k === 'const' ? v : withoutTypeBesideLiterals(v);
  }
  return out;
}

function keywordsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) node.forEach((n) => keywordsIn(n, found));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      found.add(k);
      if (k === 'properties' || k === '$defs') Object.values(v as object).forEach((n) => keywordsIn(n, found));
      else if (k !== 'enum' && k !== 'const') keywordsIn(v, found);
    }
  }
  return found;
}

describe('strict-clean schemas', () => {
  let schemas: Schemas;
  before(async () => {
    schemas = await productSchemas();
  });

  it('finds every schema the product sends', () => {
    const names = [...schemas.keys()];
    for (const expected of ['output "criteria-draft"', 'output "verification-plan"', 'verifier Verdict', 'tool read_file', 'tool run_command', 'generateObject "sentiment"', 'generateObject "reflection"']) {
      assert.ok(names.includes(expected), `${expected} is among ${names.join(', ')}`);
    }
    assert.equal(names.length, Object.keys(OUTPUT_SCHEMAS).length + 1 + Object.keys(TOOL_DEFINITIONS).length + 2);
  });

  it("is a fixed point of the OpenAI SDK's own strict transform, for every schema the product sends", () => {
    for (const [name, schema] of schemas) {
      const ours = toStrictJsonSchema(schema);
      let theirs: unknown;
      assert.doesNotThrow(() => (theirs = openAiStrict(structuredClone(ours) as never)), `${name}: the SDK refuses it`);
      assert.deepStrictEqual(theirs, ours, `${name}: the SDK's transform changes it`);
    }
  });

  it("leaves the Anthropic SDK's transform nothing to move into descriptions", () => {
    for (const [name, schema] of schemas) {
      const ours = toStrictJsonSchema(schema);
      assert.deepStrictEqual(anthropicTransform(structuredClone(ours) as never), withoutTypeBesideLiterals(ours), name);
    }
  });

  it('would catch a schema that is not strict-clean (the check above can fail)', () => {
    assert.throws(() => openAiStrict(toJsonSchema(OUTPUT_SCHEMAS['criteria-draft']) as never), /oneOf|optional/);
    const loose = toJsonSchema(Verdict);
    assert.throws(() => openAiStrict(structuredClone(loose) as never), /uses `.optional\(\)` without `.nullable\(\)`/);
  });

  it('requires every property, closes every object and emits none of the keywords strict mode refuses', () => {
    const refused = ['oneOf', 'allOf', 'not', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'default', 'prefixItems', 'patternProperties', '$schema'];
    for (const [name, schema] of schemas) {
      const json = toStrictJsonSchema(schema);
      const used = keywordsIn(json);
      assert.deepEqual(refused.filter((k) => used.has(k)), [], name);
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (!node || typeof node !== 'object') return;
        const n = node as JsonSchema;
        if (n.properties) {
          assert.equal(n.additionalProperties, false, name);
          assert.deepEqual(n.required, Object.keys(n.properties as object), name);
        }
        Object.values(n).forEach(visit);
      };
      visit(json);
    }
  });

  it('spells an optional field as required-and-nullable, a union as anyOf, and keeps bounds as words', () => {
    const json = toStrictJsonSchema(OUTPUT_SCHEMAS['criteria-draft']);
    const criterion = ((json.properties as JsonSchema).criteria as JsonSchema).items as JsonSchema;
    const props = criterion.properties as Record<string, JsonSchema>;
    assert.deepEqual(props.id, { anyOf: [{ type: 'string' }, { type: 'null' }] });
    assert.deepEqual(props.text, { type: 'string', description: '{minLength: 1}' });
    assert.deepEqual(props.anti, { anyOf: [{ type: 'boolean' }, { type: 'null' }], description: '{default: false}' });
    const verify = props.verify!.anyOf as JsonSchema[];
    assert.equal(verify[1]!.type, 'null');
    assert.equal((verify[0]!.anyOf as JsonSchema[]).length, 8, 'the verification methods, from oneOf');
    assert.equal(toStrictJsonSchema(OUTPUT_SCHEMAS['criteria-draft']), json, 'cached per schema');
  });

  it('validates null for a field that is optional, and fills defaults from null', () => {
    const verdict = validateJsonText(Verdict, JSON.stringify({ outcome: 'PASS', evidence: 'exit 0', failureLabel: null, repairTarget: null, confidence: null }));
    assert.deepEqual(verdict, { ok: true, value: { outcome: 'PASS', evidence: 'exit 0' } });
    const draft = validateValue(OUTPUT_SCHEMAS['criteria-draft'], {
      title: null,
      criteria: [{ id: null, anti: null, text: 'It works', source: null, priority: null, domain: null, verify: { type: 'GREP', pattern: 'x', glob: null, expect: null } }],
      decisions: null,
      confidence: null,
    });
    assert.ok(draft.ok, JSON.stringify(draft));
    assert.deepEqual(draft.value, { criteria: [{ anti: false, text: 'It works', source: 'INFERRED', priority: 'CRITICAL', verify: { type: 'GREP', pattern: 'x', expect: 'present' } }], decisions: [] });
    const list = parseToolArguments(TOOL_DEFINITIONS.list_files, { id: 'c1', name: 'list_files', arguments: { path: null } });
    assert.deepEqual(list, { ok: true, value: { path: '.' } });
  });

  it('still refuses null for a field that is required, and keeps a nullable field null', () => {
    const required = validateValue(Verdict, { outcome: 'PASS', evidence: null });
    assert.equal(required.ok, false);
    assert.deepEqual(!required.ok && required.issues.map((i) => i.path), ['evidence']);
    const Nullable = z.object({ note: z.string().nullable().optional() }).strict();
    assert.deepEqual(validateValue(Nullable, { note: null }), { ok: true, value: { note: null } });
    assert.deepEqual(toStrictJsonSchema(Nullable).properties, { note: { type: ['string', 'null'] } });
  });

  it('takes an optional null answer through generateObject', async () => {
    const model = { ...schemaCatcher(new Map()), chat: async (): Promise<ChatResponse> => ({ text: '{"outcome":"FAIL","evidence":"no match","failureLabel":"UNSUPPORTED_CLAIM","repairTarget":null,"confidence":null}', toolCalls: [], stopReason: 'end', usage: { inputTokens: 1, outputTokens: 1 } }) };
    const result = await generateObject(model, { name: 'verdict', schema: Verdict, messages: [{ role: 'user', content: 'judge' }] });
    assert.deepEqual(result.value, { outcome: 'FAIL', evidence: 'no match', failureLabel: 'UNSUPPORTED_CLAIM' });
    assert.equal(result.invalidOutputs, 0);
  });

  it('refuses, with the place named, a schema strict mode cannot express', () => {
    assert.throws(() => toStrictJsonSchema(z.object({ counts: z.record(z.string(), z.number()) })), /schema at \/properties\/counts (uses "propertyNames"|is a record)/);
    assert.throws(() => toStrictJsonSchema(z.object({ counts: z.object({}).catchall(z.number()) })), /schema at \/properties\/counts is a record/);
    assert.throws(() => toStrictJsonSchema(z.object({ pair: z.tuple([z.string(), z.number()]) })), /\/properties\/pair uses "prefixItems"/);
    assert.throws(() => toStrictJsonSchema(z.string()), /needs an object at its root/);
  });
});
