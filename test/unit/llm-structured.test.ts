import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { StructuredOutputError } from '../../src/llm/errors';
import { isStrictCompatible, parseToolArguments, toJsonSchema, validateJsonText } from '../../src/llm/json-schema';
import { ScriptedModel } from '../../src/llm/providers/scripted';
import { generateObject } from '../../src/llm/structured';
import type { ChatRequest } from '../../src/llm/types';
import type { UsageRecord } from '../../src/llm/usage';

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

  it('generates closed JSON schemas from zod and knows which ones strict mode takes', () => {
    const schema = toJsonSchema(Verdict);
    assert.equal(schema.$schema, undefined);
    assert.equal(schema.additionalProperties, false);
    assert.equal(isStrictCompatible(schema), true);
    assert.equal(isStrictCompatible(toJsonSchema(z.object({ a: z.string().optional() }))), false);
    assert.equal(isStrictCompatible(toJsonSchema(z.object({ a: z.object({ b: z.number() }).passthrough() }))), false);
    assert.equal(toJsonSchema(Verdict), schema, 'cached per schema');
  });

  it('validates a tool call against its tool schema', () => {
    const tool = { name: 'read_file', description: 'Reads', parameters: z.object({ path: z.string() }) };
    assert.deepEqual(parseToolArguments(tool, { id: '1', name: 'read_file', arguments: { path: 'a' } }), { ok: true, value: { path: 'a' } });
    const bad = parseToolArguments(tool, { id: '1', name: 'read_file', arguments: { path: 1 } });
    assert.equal(bad.ok, false);
    assert.equal(parseToolArguments(tool, { id: '1', name: 'other', arguments: {} }).ok, false);
  });
});
