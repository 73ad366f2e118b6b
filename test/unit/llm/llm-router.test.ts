import { CancelledError } from '../../../src/model/errors';
import * as assert from 'node:assert/strict';
import { shippedCatalogue } from '../../../src/llm/catalogue';
import { z } from 'zod';
import { MemoryLogger } from '../../../src/model/log';
import { RunEvent } from '../../../src/model';
import { parseLlmConfig, routeFor, sharedVerifierRoutes, type LlmConfigInput } from '../../../src/llm/config';
import { LlmConfigError, LlmProviderError, StructuredOutputError } from '../../../src/llm/errors';
import { AnthropicModel } from '../../../src/llm/providers/anthropic';
import { OpenAiModel } from '../../../src/llm/providers/openai';
import { MemorySecrets, resolveModels } from '../../../src/llm/resolve';
import { withRetry } from '../../../src/llm/retry';
import { escalationToRunEvent, ModelRouter, type EscalationEvent, type RoutedUsage } from '../../../src/llm/router';

const Verdict = z.object({ verdict: z.enum(['PASS', 'FAIL']) });
const ask = { messages: [{ role: 'user' as const, content: 'Judge' }], schema: Verdict, name: 'verdict' };

function twoTier(scripts: { local: string; frontier: string }, escalation: Record<string, unknown> = {}): { config: LlmConfigInput; readText: (p: string) => Promise<string> } {
  return {
    config: {
      version: 1,
      providers: [
        { id: 'ollama', kind: 'scripted', script: 'local.yaml', class: 'local' },
        { id: 'cloud', kind: 'scripted', script: 'frontier.yaml', class: 'frontier' },
      ],
      models: [
        { id: 'small', provider: 'ollama', model: 'qwen' },
        { id: 'big', provider: 'cloud', model: 'gpt' },
      ],
      routing: { default: 'small', escalation },
    },
    readText: async (p) => (p === 'local.yaml' ? scripts.local : scripts.frontier),
  };
}

describe('llm configuration and routing', () => {
  it('routes per effort level and per role, with the verifier free to differ', () => {
    const parsed = parseLlmConfig(
      'models.yaml',
      [
        'version: 1',
        'providers:',
        '  - { id: ollama, kind: openai, baseUrl: "http://127.0.0.1:11434/v1" }',
        '  - { id: anthropic, kind: anthropic }',
        'models:',
        '  - { id: small, provider: ollama, model: "qwen2.5-coder:7b" }',
        '  - { id: big, provider: anthropic, model: claude-sonnet-4-6 }',
        'routing:',
        '  default: { manager: small, specialist: small, verifier: big }',
        '  levels:',
        '    INSTANT: small',
        '    DEEP: { manager: big }',
      ].join('\n'),
    );
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
    const c = parsed.value;
    assert.equal(routeFor(c, 'verifier', 'INSTANT'), 'small');
    assert.equal(routeFor(c, 'verifier', 'STANDARD'), 'big');
    assert.equal(routeFor(c, 'manager', 'STANDARD'), 'small');
    assert.equal(routeFor(c, 'manager', 'DEEP'), 'big');
    assert.equal(routeFor(c, 'specialist', 'DEEP'), 'small', 'a role the level leaves out falls back to the default');
    assert.deepEqual(sharedVerifierRoutes(c).map((r) => r.level), ['INSTANT', 'DEEP']);
    assert.equal(c.routing.escalation.afterInvalidOutputs, 2);
  });

  it('reports configuration mistakes with line and field', () => {
    const parsed = parseLlmConfig('models.yaml', 'version: 1\nproviders:\n  - { id: a, kind: openai }\nmodels:\n  - { id: m, provider: b, model: x }\nrouting:\n  default: nope\n');
    assert.equal(parsed.ok, false);
    const problems = !parsed.ok ? parsed.problems.map((p) => `${p.line}:${p.field}: ${p.message}`) : [];
    assert.deepEqual(problems, ['5:models.0.provider: no provider "b" is configured', '7:routing.default: no model "nope" is configured']);
  });

  it('resolves configured providers to real clients, keys from the secret store before the environment', async () => {
    const resolved = await resolveModels(
      {
        version: 1,
        providers: [{ id: 'openai', kind: 'openai' }, { id: 'anthropic', kind: 'anthropic' }, { id: 'lm', kind: 'openai', baseUrl: 'http://localhost:1234/v1' }],
        models: [
          { id: 'gpt', provider: 'openai', model: 'gpt-5-mini' },
          { id: 'claude', provider: 'anthropic', model: 'claude-sonnet-4-6' },
          { id: 'local', provider: 'lm', model: 'llama' },
        ],
      },
      { secrets: new MemorySecrets({ openai: 'sk-from-secrets-123456' }), env: { ANTHROPIC_API_KEY: '' } },
    );
    const gpt = resolved.slots.get('gpt')!;
    assert.ok(gpt.ok && gpt.model instanceof OpenAiModel && gpt.model.modelClass === 'frontier');
    const local = resolved.slots.get('local')!;
    assert.ok(local.ok && local.model.modelClass === 'local', 'a loopback server needs no key and is local');
    const claude = resolved.slots.get('claude')!;
    assert.ok(!claude.ok);
    assert.match(claude.reason, /provider "anthropic" has no API key: use "Ideal State: Set API Key" or set ANTHROPIC_API_KEY/);
    const router = new ModelRouter({ ...resolved, config: { ...resolved.config, routing: { ...resolved.config.routing, default: 'claude' } } });
    assert.throws(() => router.route('manager', 'STANDARD'), (e: unknown) => e instanceof LlmConfigError && /manager at STANDARD routes to "claude"/.test(e.message));
  });

  describe('environment fallback for the command line', () => {
    const KEY = 'sk-env-key-abcdef123456';
    it('lets the provider whose key is set serve every role, with --model picking the model', async () => {
      const r = await resolveModels(undefined, { env: { ANTHROPIC_API_KEY: KEY }, model: 'claude-opus-4-5' });
      assert.equal(r.source, 'environment');
      const router = new ModelRouter(r);
      for (const role of ['manager', 'specialist', 'verifier'] as const) {
        const m = router.route(role, 'DEEP');
        assert.ok(m instanceof AnthropicModel);
        assert.equal(m.model, 'claude-opus-4-5');
      }
    });

    it('uses OpenAI with its default model, and OPENAI_BASE_URL for a local server', async () => {
      const openai = new ModelRouter(await resolveModels(undefined, { env: { OPENAI_API_KEY: KEY } })).route('manager', 'FAST');
      assert.ok(openai instanceof OpenAiModel);
      assert.equal(openai.model, shippedCatalogue().defaults.openai);
      const local = new ModelRouter(await resolveModels(undefined, { env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, model: 'qwen2.5-coder:7b' })).route('verifier', 'FAST');
      assert.equal(local.modelClass, 'local');
      assert.equal(local.model, 'qwen2.5-coder:7b');
      await assert.rejects(resolveModels(undefined, { env: { OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' } }), /pass --model/);
    });

    it('picks Anthropic for a Claude model when both keys are set, OpenAI otherwise', async () => {
      const env = { OPENAI_API_KEY: KEY, ANTHROPIC_API_KEY: KEY };
      assert.equal((await resolveModels(undefined, { env, model: 'claude-haiku-4-5' })).config.providers[0]!.kind, 'anthropic');
      assert.equal((await resolveModels(undefined, { env })).config.providers[0]!.kind, 'openai');
      assert.equal((await resolveModels(undefined, { env, provider: 'anthropic' })).config.providers[0]!.kind, 'anthropic');
    });

    it('says what to set when nothing is configured, without echoing any key', async () => {
      await assert.rejects(resolveModels(undefined, { env: {} }), (e: unknown) => e instanceof LlmConfigError && /set OPENAI_API_KEY or ANTHROPIC_API_KEY/.test(e.message));
      await assert.rejects(resolveModels(undefined, { env: { OPENAI_API_KEY: KEY }, provider: 'anthropic' }), (e: unknown) => e instanceof LlmConfigError && !e.message.includes(KEY));
    });

    it('pins every role to a configured model with --model, and rejects an unknown one', async () => {
      const { config, readText } = twoTier({ local: 'steps:\n  - text: a\n', frontier: 'steps:\n  - text: b\n' });
      const r = await resolveModels(config, { readText, model: 'big' });
      assert.equal(new ModelRouter(r).route('manager', 'INSTANT').id, 'big');
      await assert.rejects(resolveModels(config, { readText, model: 'huge' }), /--model huge is not a configured model; configured: small, big/);
    });
  });

  describe('escalation from local to frontier', () => {
    it('escalates after repeated invalid output, retries on the frontier model, and records the escalation', async () => {
      const { config, readText } = twoTier({
        local: "steps:\n  - text: 'not json'\n  - text: '{\"verdict\":\"MAYBE\"}'\n",
        frontier: 'steps:\n  - object: { verdict: PASS }\n    usage: { inputTokens: 50, outputTokens: 5 }\n  - object: { verdict: FAIL }\n',
      });
      const logger = new MemoryLogger();
      const escalations: EscalationEvent[] = [];
      const usage: RoutedUsage[] = [];
      const router = new ModelRouter(await resolveModels(config, { readText }), { logger, onEscalation: (e) => escalations.push(e), onUsage: (u) => usage.push(u) });
      assert.equal(router.route('verifier', 'STANDARD').id, 'small');
      const result = await router.generateObject('verifier', 'STANDARD', ask);
      assert.deepEqual(result.value, { verdict: 'PASS' });
      assert.equal(result.model.id, 'big');
      assert.equal(escalations.length, 1);
      const { durationMs, ...rest } = escalations[0]!;
      assert.deepEqual(rest, { role: 'verifier', level: 'STANDARD', from: 'small', to: 'big', model: 'scripted: frontier', reason: 'invalid-output', count: 2, sticky: true, inputTokens: 50, outputTokens: 5, costUsd: 0 });
      assert.ok(durationMs >= 0);
      assert.deepEqual(router.escalations, escalations);
      assert.ok(logger.lines.some((l) => l.includes('escalated verifier at STANDARD from local model "small" to frontier model "big" after 2 invalid outputs')));
      assert.deepEqual(usage.map((u) => [u.modelId, u.role, u.level]), [['small', 'verifier', 'STANDARD'], ['small', 'verifier', 'STANDARD'], ['big', 'verifier', 'STANDARD']]);
      assert.equal(router.route('verifier', 'STANDARD').id, 'big', 'the escalation holds for later calls');
      assert.equal(router.route('manager', 'STANDARD').id, 'small', 'other roles stay local');
      const event = escalationToRunEvent(escalations[0]!, { runId: 'run-abc123', seq: 9, at: '2026-01-01T00:00:00.000Z', phase: 'VERIFY' });
      assert.deepEqual(RunEvent.parse(event), event);
    });

    it('counts a repaired output toward the threshold', async () => {
      const { config, readText } = twoTier(
        { local: "steps:\n  - text: 'x'\n  - object: { verdict: PASS }\n  - text: 'y'\n  - object: { verdict: FAIL }\n", frontier: 'steps:\n  - object: { verdict: PASS }\n' },
        { afterInvalidOutputs: 2 },
      );
      const router = new ModelRouter(await resolveModels(config, { readText }));
      assert.equal((await router.generateObject('manager', 'FAST', ask)).model.id, 'small');
      assert.equal(router.escalations.length, 0);
      const second = await router.generateObject('manager', 'FAST', ask);
      assert.equal(second.model.id, 'small', 'the call that crossed the threshold succeeded locally');
      assert.equal(router.escalations.length, 1);
      assert.equal(router.route('manager', 'FAST').id, 'big');
    });

    it('escalates after repeated failures, but never on cancellation', async () => {
      const { config, readText } = twoTier({ local: 'steps:\n  - error: { kind: server }\n  - error: { kind: connection }\n', frontier: 'steps:\n  - text: rescued\n' });
      const router = new ModelRouter(await resolveModels(config, { readText }));
      const req = { messages: [{ role: 'user' as const, content: 'hi' }] };
      await assert.rejects(router.chat('specialist', 'STANDARD', req), LlmProviderError);
      const { response, model } = await router.chat('specialist', 'STANDARD', req);
      assert.equal(response.text, 'rescued');
      assert.equal(model.id, 'big');
      assert.equal(router.escalations[0]!.reason, 'failure');

      const cancelled = twoTier({ local: 'steps:\n  - text: a\n    delayMs: 5000\n  - text: b\n    delayMs: 5000\n', frontier: 'steps:\n  - text: c\n' }, { afterFailures: 1 });
      const r2 = new ModelRouter(await resolveModels(cancelled.config, { readText: cancelled.readText }));
      for (let i = 0; i < 2; i++) {
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 10);
        await assert.rejects(r2.chat('manager', 'FAST', { ...req, signal: controller.signal }), CancelledError);
      }
      assert.equal(r2.escalations.length, 0);
      assert.equal(r2.route('manager', 'FAST').id, 'small');
    });

    it('does not escalate a frontier model or when escalation is off; the typed error reaches the caller', async () => {
      const { config, readText } = twoTier({ local: "steps:\n  - text: 'x'\n  - text: 'y'\n", frontier: 'steps:\n  - text: a\n' }, { enabled: false });
      const router = new ModelRouter(await resolveModels(config, { readText }));
      await assert.rejects(router.generateObject('manager', 'FAST', ask), StructuredOutputError);
      assert.equal(router.escalations.length, 0);
    });
  });

  describe('retry helper for providers without SDK retries (vscode.lm)', () => {
    it('retries rate limits honouring retry-after, and stops at once on cancellation', async () => {
      let calls = 0;
      const started = Date.now();
      const value = await withRetry(
        async () => {
          calls++;
          if (calls === 1) throw new LlmProviderError('m', 'rate-limit', 'slow', 429, 300);
          if (calls === 2) throw new LlmProviderError('m', 'server', 'boom', 500);
          return 'ok';
        },
        { model: 'm', policy: { maxRetries: 3, initialDelayMs: 10, maxDelayMs: 20 } },
      );
      assert.equal(value, 'ok');
      assert.equal(calls, 3);
      assert.ok(Date.now() - started >= 290);
      let authCalls = 0;
      await assert.rejects(withRetry(async () => { authCalls++; throw new LlmProviderError('m', 'auth', 'no'); }, { model: 'm' }), LlmProviderError);
      assert.equal(authCalls, 1, 'auth failures are not retried');
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 20);
      await assert.rejects(withRetry(async () => { throw new LlmProviderError('m', 'server', 'x', 500, 10_000); }, { model: 'm', signal: controller.signal }), CancelledError);
    });
  });
});
