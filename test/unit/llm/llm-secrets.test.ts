import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { MemoryLogger } from '../../../src/model/log';
import { BudgetLedger } from '../../../src/llm/budgets';
import type { LlmConfigInput } from '../../../src/llm/config';
import { BudgetExceededError, LlmProviderError, LlmTimeoutError, StructuredOutputError } from '../../../src/llm/errors';
import { MemorySecrets, resolveModels } from '../../../src/llm/resolve';
import { escalationToRunEvent, ModelRouter, type EscalationEvent, type RoutedUsage } from '../../../src/llm/router';
import { usageToRunEvent } from '../../../src/llm/usage';
import { anthropicError, brokenJson, FakeServer, hang, openAiCompletion, openAiError } from '../fixtures/llm/fake-server';

const KEY = 'sk-test-PLANTED-0123456789abcdef';
/** Pieces of the key that must not survive either, e.g. in a truncated JSON error snippet. */
const FRAGMENTS = [KEY, 'PLANTED', '0123456789abcdef'];

describe('llm secret hygiene', () => {
  let server: FakeServer;
  beforeEach(async () => {
    server = await new FakeServer().start();
  });
  afterEach(async () => {
    await server.stop();
  });

  it('keeps a planted API key out of every error, log line, usage record and run event, whatever fails', async () => {
    const config: LlmConfigInput = {
      version: 1,
      providers: [
        { id: 'cloud', kind: 'openai', baseUrl: `${server.url}/v1`, class: 'frontier', apiKeySecret: 'cloud-key', maxRetries: 0, timeoutMs: 300 },
        { id: 'anth', kind: 'anthropic', baseUrl: server.url, maxRetries: 0, timeoutMs: 300 },
      ],
      models: [
        { id: 'small', provider: 'cloud', model: 'qwen2.5-coder:7b', class: 'local' },
        { id: 'big', provider: 'cloud', model: 'acme-chat-1' },
        { id: 'claude', provider: 'anth', model: 'claude-sonnet-4-6' },
      ],
      routing: { default: 'small', levels: { DEEP: 'claude' }, escalation: { afterFailures: 1, to: 'big' } },
    };
    const logger = new MemoryLogger();
    const usage: RoutedUsage[] = [];
    const escalations: EscalationEvent[] = [];
    const budget = new BudgetLedger({ call: {}, phase: { tokens: 5000 }, run: {} }, { logger });
    const resolved = await resolveModels(config, { secrets: new MemorySecrets({ 'cloud-key': KEY }), env: { ANTHROPIC_API_KEY: KEY } });
    const router = new ModelRouter(resolved, { logger, budget, onUsage: (u) => usage.push(u), onEscalation: (e) => escalations.push(e) });
    const errors: unknown[] = [];
    const fails = async (call: Promise<unknown>, type: new (...args: never[]) => Error) => {
      await assert.rejects(call, (e: unknown) => (errors.push(e), e instanceof type));
    };
    const ask = (content = 'Hi') => ({ messages: [{ role: 'user' as const, content }], phase: 'EXECUTE' as const });

    // 401 on the local model (escalates at once), then a 500 on the frontier model; both echo the key.
    server.reply(openAiError(401, `Incorrect API key provided: ${KEY}.`), openAiError(500, `internal error while using ${KEY}`));
    await fails(router.chat('manager', 'STANDARD', ask()), LlmProviderError);
    // A timeout.
    server.reply(hang());
    await fails(router.chat('manager', 'STANDARD', ask()), LlmTimeoutError);
    // Invalid structured output twice, the model echoing the key.
    server.reply(openAiCompletion({ content: `My key is ${KEY}` }, 'stop'), openAiCompletion({ content: `{"verdict":"${KEY}"}` }, 'stop'));
    await fails(router.generateObject('manager', 'STANDARD', { ...ask(), schema: z.object({ verdict: z.enum(['PASS', 'FAIL']) }), name: 'verdict' }), StructuredOutputError);
    // A body that is not JSON and holds the key near its start.
    server.reply(brokenJson(`{"error":"${KEY}`));
    await fails(router.chat('manager', 'STANDARD', ask()), LlmProviderError);
    // Anthropic's 401, echoing the key.
    server.reply(anthropicError(401, 'authentication_error', `invalid x-api-key ${KEY}`));
    await fails(router.chat('verifier', 'DEEP', ask()), LlmProviderError);
    // A budget refusal for a prompt in which the user pasted the key.
    await fails(router.chat('manager', 'STANDARD', ask(`${KEY} `.repeat(1000))), BudgetExceededError);
    // And one call that works, so there is usage to look at.
    server.reply(openAiCompletion({ content: `here: ${KEY}` }, 'stop', { prompt_tokens: 40, completion_tokens: 9 }));
    await router.chat('manager', 'STANDARD', ask());

    assert.equal(server.received[0]!.headers.authorization, `Bearer ${KEY}`, 'the planted key was really in use');
    assert.ok(server.received.some((r) => r.url === '/v1/messages' && (r.headers['x-api-key'] === KEY || r.headers.authorization === `Bearer ${KEY}`)), JSON.stringify(server.received.map((r) => [r.url, r.headers['x-api-key'], r.headers.authorization])));
    assert.equal(errors.length, 6);
    assert.ok(escalations.length >= 1 && usage.length >= 3, 'escalations and usage were produced');
    assert.ok(logger.lines.length >= 6, 'failures are logged');

    const ctx = { runId: 'run-abc123', seq: 1, at: '2026-01-01T00:00:00.000Z' };
    const texts = [
      ...errors.flatMap((e) => (e instanceof Error ? [e.message, String(e), e.stack ?? '', JSON.stringify(e), String(e.cause ?? '')] : [String(e)])),
      ...logger.lines,
      ...usage.map((u) => JSON.stringify(u)),
      ...usage.map((u) => JSON.stringify(usageToRunEvent(u, { ...ctx, role: u.role, phase: u.phase }))),
      ...escalations.map((e) => JSON.stringify(e)),
      ...escalations.map((e) => JSON.stringify(escalationToRunEvent(e, ctx))),
      ...budget.refusals.map((r) => JSON.stringify(r) + r.message),
    ];
    for (const text of texts) {
      for (const fragment of FRAGMENTS) assert.ok(!text.includes(fragment), `"${fragment}" leaked into: ${text}`);
    }
  });
});
