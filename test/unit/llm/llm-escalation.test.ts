import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { MemoryLogger } from '../../../src/model/log';
import { RunEvent } from '../../../src/model';
import { parseLlmConfig, type LlmConfigInput } from '../../../src/llm/config';
import { LlmConfigError, LlmProviderError } from '../../../src/llm/errors';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { resolveModels } from '../../../src/llm/resolve';
import type { LanguageModel } from '../../../src/llm/types';
import { escalationToRunEvent, ModelRouter, type EscalationEvent } from '../../../src/llm/router';

const Judged = z.object({ verdict: z.enum(['PASS', 'FAIL']), confidence: z.number().min(0).max(1) });
const ask = { messages: [{ role: 'user' as const, content: 'Judge ISC-1' }], schema: Judged, name: 'judged' };
const ctx = { runId: 'run-abc123', seq: 3, at: '2026-01-01T00:00:00.000Z' };

/** A frontier model answering from a script, with a price (scripted models are free), so escalations carry a cost. */
function pricedScripted(script: string): LanguageModel {
  const inner = ScriptedModel.fromText('frontier.yaml', script, { id: 'big', providerId: 'cloud', modelClass: 'frontier' });
  return { id: 'big', providerId: 'cloud', kind: 'openai', model: 'gpt', modelClass: 'frontier', displayName: 'gpt', price: { inputPerMTok: 2, outputPerMTok: 8 }, chat: (r) => inner.chat(r) };
}

function setup(scripts: { local: string; frontier: string }, routing: Record<string, unknown> = {}): { config: LlmConfigInput; readText: (p: string) => Promise<string> } {
  return {
    config: {
      version: 1,
      providers: [
        { id: 'ollama', kind: 'scripted', script: 'local.yaml', class: 'local' },
        { id: 'cloud', kind: 'scripted', script: 'frontier.yaml', class: 'frontier' },
      ],
      models: [
        { id: 'small', provider: 'ollama', model: 'qwen' },
        { id: 'big', provider: 'cloud', model: 'gpt', prices: { inputPerMTok: 2, outputPerMTok: 8 } },
      ],
      routing: { default: 'small', ...routing },
    },
    readText: async (p) => (p === 'local.yaml' ? scripts.local : scripts.frontier),
  };
}

async function router(s: ReturnType<typeof setup>) {
  const events: EscalationEvent[] = [];
  const logger = new MemoryLogger();
  const r = new ModelRouter(await resolveModels(s.config, { readText: s.readText }), { logger, onEscalation: (e) => events.push(e) });
  return { r, events, logger };
}

describe('llm escalation on confidence and policy', () => {
  it('asks the frontier model again when the local answer says its confidence is low, for that call only', async () => {
    const s = setup({
      local: 'steps:\n  - object: { verdict: PASS, confidence: 0.3 }\n  - object: { verdict: PASS, confidence: 0.9 }\n',
      frontier: 'steps:\n  - object: { verdict: FAIL, confidence: 0.95 }\n    usage: { inputTokens: 1000, outputTokens: 500 }\n',
    });
    const events: EscalationEvent[] = [];
    const logger = new MemoryLogger();
    const resolved = await resolveModels(s.config, { readText: s.readText });
    // Only the frontier slot is swapped for a priced stand-in; the local one stays scripted.
    const big = pricedScripted('steps:\n  - object: { verdict: FAIL, confidence: 0.95 }\n    usage: { inputTokens: 1000, outputTokens: 500 }\n');
    const slots = new Map(resolved.slots).set('big', { ok: true, model: big });
    const r = new ModelRouter({ ...resolved, slots }, { logger, onEscalation: (e) => events.push(e) });
    const first = await r.generateObject('verifier', 'STANDARD', { ...ask, phase: 'VERIFY' });
    assert.deepEqual(first.value, { verdict: 'FAIL', confidence: 0.95 });
    assert.equal(first.model.id, 'big');
    assert.equal(events.length, 1);
    const e = events[0]!;
    assert.deepEqual(
      { reason: e.reason, confidence: e.confidence, from: e.from, to: e.to, model: e.model, sticky: e.sticky, phase: e.phase, in: e.inputTokens, out: e.outputTokens, cost: e.costUsd },
      { reason: 'low-confidence', confidence: 0.3, from: 'small', to: 'big', model: 'gpt', sticky: false, phase: 'VERIFY', in: 1000, out: 500, cost: 0.006 },
    );
    assert.ok(e.durationMs >= 0);
    const event = escalationToRunEvent(e, ctx);
    assert.deepEqual(RunEvent.parse(event), event);
    assert.equal(event.costUsd, 0, 'the moved call has its own usage event; totals must not count it twice');
    assert.match(event.message, /\$0\.006/, 'the cost of the moved call is told in the message');
    assert.equal(event.phase, 'VERIFY');
    assert.match(event.message, /confidence 0\.3 was under the threshold/);
    assert.ok(logger.lines.some((l) => l.includes('low-confidence') || l.includes('confidence 0.3')));
    const second = await r.generateObject('verifier', 'STANDARD', ask);
    assert.equal(second.model.id, 'small', 'a confident local answer stays local: low confidence moved one call');
    assert.equal(events.length, 1);
  });

  it('takes the caller\'s confidence, and a configured threshold', async () => {
    const Plain = z.object({ verdict: z.enum(['PASS', 'FAIL']) });
    const s = setup(
      { local: 'steps:\n  - object: { verdict: PASS }\n  - text: hmm\n', frontier: 'steps:\n  - object: { verdict: FAIL }\n  - text: sure\n' },
      { escalation: { confidenceBelow: 0.8 } },
    );
    const { r, events } = await router(s);
    const result = await r.generateObject('manager', 'FAST', { messages: ask.messages, schema: Plain, name: 'plain', confidenceOf: () => 0.7 });
    assert.equal(result.model.id, 'big');
    const chat = await r.chat('manager', 'FAST', { messages: ask.messages, confidenceOf: (resp) => (resp.text === 'hmm' ? 0.75 : 1) });
    assert.equal(chat.response.text, 'sure');
    assert.deepEqual(events.map((e) => [e.reason, e.confidence]), [['low-confidence', 0.7], ['low-confidence', 0.75]]);
  });

  it('does not escalate a confident answer or one without a confidence', async () => {
    const s = setup({ local: 'steps:\n  - object: { verdict: PASS, confidence: 0.5 }\n', frontier: 'steps:\n  - text: never\n' });
    const { r, events } = await router(s);
    assert.equal((await r.generateObject('manager', 'FAST', ask)).model.id, 'small', 'the threshold is strict: 0.5 is not under 0.5');
    assert.equal(events.length, 0);
  });

  it('sends a frontier-only role to the frontier model from its first call, and records it once', async () => {
    const s = setup(
      { local: 'steps:\n  - text: local answer\n', frontier: 'steps:\n  - { text: one, usage: { inputTokens: 10, outputTokens: 2 } }\n  - text: two\n' },
      { roles: { verifier: { policy: 'frontier-only' } } },
    );
    const { r, events } = await router(s);
    assert.equal(r.route('verifier', 'DEEP').id, 'big');
    assert.equal(r.route('manager', 'DEEP').id, 'small');
    assert.equal((await r.chat('verifier', 'DEEP', { messages: ask.messages, phase: 'VERIFY' })).model.id, 'big');
    assert.equal((await r.chat('verifier', 'DEEP', { messages: ask.messages })).response.text, 'two');
    assert.equal(events.length, 1);
    assert.deepEqual([events[0]!.reason, events[0]!.sticky, events[0]!.inputTokens, events[0]!.outputTokens], ['policy', true, 10, 2]);
    assert.match(escalationToRunEvent(events[0]!, ctx).message, /because its policy is frontier-only/);
    assert.equal((await r.chat('manager', 'DEEP', { messages: ask.messages })).response.text, 'local answer');
  });

  it('never escalates a local-only role, and refuses to route it to a frontier model', async () => {
    const s = setup(
      { local: 'steps:\n  - error: { kind: server }\n  - error: { kind: server }\n  - object: { verdict: PASS, confidence: 0.1 }\n', frontier: 'steps:\n  - text: never\n' },
      { roles: { specialist: { policy: 'local-only' } }, escalation: { afterFailures: 1 }, levels: { DEEP: { specialist: 'big' } } },
    );
    const { r, events } = await router(s);
    const req = { messages: ask.messages };
    await assert.rejects(r.chat('specialist', 'FAST', req), LlmProviderError);
    await assert.rejects(r.chat('specialist', 'FAST', req), LlmProviderError);
    assert.equal((await r.generateObject('specialist', 'FAST', ask)).model.id, 'small', 'low confidence stays local too');
    assert.equal(events.length, 0);
    assert.throws(() => r.route('specialist', 'DEEP'), (e: unknown) => e instanceof LlmConfigError && /local-only/.test(e.message));
  });

  it('parses policies and the threshold from the configuration file, and rejects unknown ones', () => {
    const ok = parseLlmConfig('m.yaml', 'version: 1\nproviders: [{ id: a, kind: openai }]\nmodels: [{ id: m, provider: a, model: x }]\nrouting:\n  escalation: { confidenceBelow: 0.7 }\n  roles: { verifier: { policy: frontier-only } }\n');
    assert.ok(ok.ok);
    assert.equal(ok.value.routing.escalation.confidenceBelow, 0.7);
    assert.equal(ok.value.routing.roles?.verifier?.policy, 'frontier-only');
    const bad = parseLlmConfig('m.yaml', 'version: 1\nproviders: [{ id: a, kind: openai }]\nmodels: [{ id: m, provider: a, model: x }]\nrouting:\n  roles: { verifier: { policy: cloud-maybe } }\n');
    assert.equal(bad.ok, false);
    assert.equal(!bad.ok && bad.problems[0]!.field, 'routing.roles.verifier.policy');
  });
});
