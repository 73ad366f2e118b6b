import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { CriteriaDraft } from '../../../src/algorithm/outputs';
import { clampNonEssential } from '../../../src/llm/bounded';
import { StructuredOutputError } from '../../../src/llm/errors';
import { toStrictJsonSchema } from '../../../src/llm/json-schema';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { generateObject, type ObjectResult } from '../../../src/llm/structured';
import type { ChatRequest } from '../../../src/llm/types';
import { boundedTimeout, MAX_METHOD_TIMEOUT_MS, verifyCriteria } from '../../../src/verify/verify-criteria';
import { criterion, workspace } from '../support/verify-helpers';

/**
 * Values a model gives are bounded where they are used (issue 27). The stand-in is the
 * scripted provider answering within each schema *as sent*: a strict schema carries bounds
 * only in its description (`{maximum: 1}`), never as keywords, because the providers refuse
 * them (json-schema.ts cites OpenAI's and Anthropic's pages), so a real model may break them.
 */
const messages = [{ role: 'user' as const, content: 'Turn the request into criteria' }];

function standIn(...replies: unknown[]) {
  const yaml = `steps:\n${replies.map((r) => `  - text: '${JSON.stringify(r).replace(/'/g, "''")}'\n`).join('')}`;
  const model = ScriptedModel.fromText('bounded.yaml', yaml);
  const seen: ChatRequest[] = [];
  const chat = model.chat.bind(model);
  model.chat = (request) => (seen.push(request), chat(request));
  return { model, seen };
}

describe('values a model gives, bounded where they are used', () => {
  it('sends the bound of `confidence` only in its description, so a model can break it', () => {
    const schema = toStrictJsonSchema(CriteriaDraft) as { properties: { confidence: { description?: string; anyOf?: unknown } } };
    assert.match(JSON.stringify(schema.properties.confidence), /maximum: 1/);
    assert.doesNotMatch(JSON.stringify(schema.properties.confidence), /"maximum"/);
  });

  it('clamps a non-essential number out of range (a confidence of 7) and says so, in one call: the phase does not fail', async () => {
    const { model, seen } = standIn({ title: 'Greeting', criteria: [{ text: 'The greeting names the user' }], confidence: 7 });
    const told: string[] = [];
    const result: ObjectResult<z.output<typeof CriteriaDraft>> = await generateObject(model, { messages, schema: CriteriaDraft, name: 'criteria_draft' }, { onAdjusted: (a) => told.push(...a.map((x) => `${x.path}: ${x.given} -> ${x.used}`)) });
    assert.equal(result.value.confidence, 1);
    assert.equal(result.value.criteria[0]!.text, 'The greeting names the user');
    assert.deepEqual(result.adjusted, [{ path: 'confidence', given: 7, used: 1 }]);
    assert.deepEqual(told, ['confidence: 7 -> 1']);
    assert.equal(seen.length, 1, 'not asked again');
    assert.equal(result.invalidOutputs, 0);
  });

  it('clamps below the minimum too, inside arrays', () => {
    const schema = z.object({ items: z.array(z.object({ name: z.string(), weight: z.number().min(0).max(1).optional() })) });
    const out = clampNonEssential(schema, { items: [{ name: 'a', weight: -3 }, { name: 'b', weight: 0.5 }] });
    assert.deepEqual(out.data, { items: [{ name: 'a', weight: 0 }, { name: 'b', weight: 0.5 }] });
    assert.deepEqual(out.adjusted, [{ path: 'items.0.weight', given: -3, used: 0 }]);
  });

  it('asks again about an essential value out of range, naming the field, its bound and the value given', async () => {
    const Score = z.object({ score: z.number().int().max(10), note: z.string() });
    const { model, seen } = standIn({ score: 70, note: 'x' }, { score: 7, note: 'x' });
    const result = await generateObject(model, { messages, schema: Score, name: 'score' });
    assert.equal(result.value.score, 7);
    assert.equal(seen.length, 2);
    const repair = seen[1]!.messages[seen[1]!.messages.length - 1]!.content;
    assert.match(repair, /- score: Too big: expected number to be <=10 \(you gave 70\)/);
  });

  it('when an essential value is wrong too, clamps the rest and asks only about that one', async () => {
    const { model, seen } = standIn({ criteria: [{ text: '' }], confidence: 7 }, { criteria: [{ text: 'The greeting names the user' }], confidence: 0.9 });
    const result = await generateObject(model, { messages, schema: CriteriaDraft, name: 'criteria_draft' });
    assert.equal(result.value.confidence, 0.9);
    const repair = seen[1]!.messages[seen[1]!.messages.length - 1]!.content;
    assert.match(repair, /criteria\.0\.text: .*\(you gave ""\)/);
    assert.doesNotMatch(repair.split('Reply again')[0]!, /confidence/, 'the problems listed are the essential ones');
  });

  it('still fails after two outputs whose essential value stays out of range', async () => {
    const Score = z.object({ score: z.number().max(10) });
    const { model } = standIn({ score: 70 }, { score: 80 });
    await assert.rejects(generateObject(model, { messages, schema: Score, name: 'score' }), StructuredOutputError);
  });

  it('bounds a method’s own timeout: a model’s 3068515762312072 ms becomes the product’s hour, never a 1 ms timer', async () => {
    assert.equal(boundedTimeout(3068515762312072, 20_000), MAX_METHOD_TIMEOUT_MS);
    assert.equal(boundedTimeout(undefined, 20_000), 20_000);
    assert.equal(boundedTimeout(120_000, 20_000), 120_000, 'a sensible own timeout stays');
    assert.equal(boundedTimeout(-5, 20_000), 20_000);
    assert.equal(boundedTimeout(Number.NaN, Number.POSITIVE_INFINITY), MAX_METHOD_TIMEOUT_MS);
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const root = workspace({});
      const c = criterion({ type: 'CLI', command: 'node -e "setTimeout(() => {}, 300)"', timeoutMs: 3068515762312072 });
      const set = await verifyCriteria([c], { workspaceRoot: root }, { parallelism: 1, timeoutMs: 20_000 });
      assert.equal(set.results[0]!.outcome, 'PASS', set.results[0]!.evidence);
      await new Promise((resolve) => setImmediate(resolve));
      assert.ok(!warnings.includes('TimeoutOverflowWarning'), warnings.join(','));
    } finally {
      process.off('warning', onWarning);
    }
  });
});
