import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { EFFORT_LEVELS } from '../../src/core/model';
import { budgetFor, BudgetLedger, budgetOverrideFromSettings, estimateCall, shippedBudgetTable } from '../../src/llm/budgets';
import { parseLlmConfig, type LlmConfigInput } from '../../src/llm/config';
import { BudgetExceededError, LlmProviderError } from '../../src/llm/errors';
import { ScriptedModel } from '../../src/llm/providers/scripted';
import { resolveModels } from '../../src/llm/resolve';
import { ModelRouter, type RoutedUsage } from '../../src/llm/router';
import type { ChatRequest, LanguageModel } from '../../src/llm/types';

/** A frontier model with a known price that answers from a script, counting the calls it saw. */
function priced(yaml: string, price = { inputPerMTok: 3, outputPerMTok: 15 }) {
  const inner = ScriptedModel.fromText('budget.yaml', yaml, { id: 'big', modelClass: 'frontier' });
  const seen: ChatRequest[] = [];
  const model: LanguageModel = {
    id: inner.id,
    providerId: 'cloud',
    kind: 'openai',
    model: 'claude-sonnet-4-6',
    modelClass: 'frontier',
    displayName: 'claude-sonnet-4-6',
    price,
    chat: (request) => (seen.push(request), inner.chat(request)),
  };
  return { model, seen };
}

const hello = (chars: number): ChatRequest => ({ messages: [{ role: 'user', content: 'x'.repeat(chars) }], maxOutputTokens: 100 });

describe('llm budgets', () => {
  it('ships caps for every effort level that grow with the level', () => {
    const table = shippedBudgetTable();
    for (let i = 1; i < EFFORT_LEVELS.length; i++) {
      const [lower, higher] = [table.levels[EFFORT_LEVELS[i - 1]!], table.levels[EFFORT_LEVELS[i]!]];
      for (const scope of ['call', 'phase', 'run'] as const) {
        assert.ok(higher[scope].tokens! >= lower[scope].tokens!, `${EFFORT_LEVELS[i]} ${scope} tokens`);
        assert.ok(higher[scope].usd! >= lower[scope].usd!, `${EFFORT_LEVELS[i]} ${scope} usd`);
      }
      assert.ok(higher.run.usd! > lower.run.usd!);
    }
    for (const level of EFFORT_LEVELS) {
      const l = table.levels[level];
      assert.ok(l.call.tokens! <= l.phase.tokens! && l.phase.tokens! <= l.run.tokens!, level);
      assert.ok(l.call.usd! <= l.phase.usd! && l.phase.usd! <= l.run.usd!, level);
    }
  });

  it('lets a configuration replace or remove any cap of a level', () => {
    const b = budgetFor('STANDARD', { run: { usd: 5 }, call: { tokens: null } });
    assert.equal(b.run.usd, 5);
    assert.equal(b.run.tokens, shippedBudgetTable().levels.STANDARD.run.tokens);
    assert.equal(b.call.tokens, undefined);
    assert.equal(b.call.usd, shippedBudgetTable().levels.STANDARD.call.usd);
  });

  it('takes overrides from the model configuration file and then from the caller, later ones winning', () => {
    const parsed = parseLlmConfig('models.yaml', 'version: 1\nproviders: [{ id: a, kind: openai }]\nmodels: [{ id: m, provider: a, model: x }]\nbudgets:\n  DEEP: { run: { usd: 10, tokens: null } }\n');
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
    const ledger = BudgetLedger.forLevel('DEEP', [parsed.value.budgets?.DEEP, { run: { usd: 12 } }]);
    assert.equal(ledger.limits.run.usd, 12);
    assert.equal(ledger.limits.run.tokens, undefined);
    assert.deepEqual(ledger.remaining('PLAN'), { run: { usd: 12 }, phase: { tokens: 10_000_000, usd: 20 } });
    const bad = parseLlmConfig('models.yaml', 'version: 1\nproviders: [{ id: a, kind: openai }]\nmodels: [{ id: m, provider: a, model: x }]\nbudgets:\n  DEEP: { run: { dollars: 10 } }\n');
    assert.equal(bad.ok, false);
  });

  describe('from the editor settings', () => {
    it('turns each set budget setting into the cap of its scope and unit, and leaves empty or 0 ones to the level', () => {
      assert.deepEqual(budgetOverrideFromSettings({}), {});
      assert.deepEqual(budgetOverrideFromSettings({ callTokens: null, callUsd: 0, phaseTokens: 0, phaseUsd: null, runTokens: null, runUsd: null }), {});
      assert.deepEqual(budgetOverrideFromSettings({ callTokens: 1200.7, runUsd: 0.5 }), { call: { tokens: 1200 }, run: { usd: 0.5 } });
      assert.deepEqual(budgetOverrideFromSettings({ phaseTokens: -5, phaseUsd: Number.NaN, runTokens: 0.4 }), {}, 'unusable numbers fall back to the level');
    });

    it('win over the models file, which wins over the effort level, cap by cap', () => {
      const parsed = parseLlmConfig('models.yaml', 'version: 1\nproviders: [{ id: a, kind: openai }]\nmodels: [{ id: m, provider: a, model: x }]\nbudgets:\n  FAST: { run: { usd: 1, tokens: 300000 }, call: { tokens: null } }\n');
      assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.problems));
      const shipped = shippedBudgetTable().levels.FAST;
      const fileOnly = budgetFor('FAST', [parsed.value.budgets?.FAST]);
      assert.deepEqual(fileOnly.run, { usd: 1, tokens: 300_000 });
      assert.equal(fileOnly.call.tokens, undefined, 'the file removed the call token cap');
      const settings = budgetOverrideFromSettings({ runUsd: 0.2, callTokens: 8000 });
      const limits = budgetFor('FAST', [parsed.value.budgets?.FAST, settings]);
      assert.deepEqual(limits.run, { usd: 0.2, tokens: 300_000 }, 'the setting replaced the money cap; the file still sets the token cap');
      assert.deepEqual(limits.call, { tokens: 8000, usd: shipped.call.usd }, 'the setting restored a call token cap the file removed');
      assert.deepEqual(limits.phase, shipped.phase, 'nothing overrides the phase: the effort level decides');
      assert.deepEqual(budgetFor('FAST', [undefined, budgetOverrideFromSettings({})]), shipped, 'with no file and no settings, the level');
    });

    it('refuses a call that would pass a cap set by a setting, without making it', async () => {
      const { model, seen } = priced('steps:\n  - text: a\n    usage: { inputTokens: 120, outputTokens: 20 }\n  - text: b\n');
      const ledger = BudgetLedger.forLevel('COMPREHENSIVE', [undefined, budgetOverrideFromSettings({ runTokens: 300 })]);
      assert.equal(ledger.limits.run.tokens, 300);
      await ledger.guard(model, 'OBSERVE').chat(hello(400));
      assert.equal(ledger.spent.tokens, 140, 'the first call (estimate 200) fits and counts its actual usage');
      await assert.rejects(ledger.guard(model, 'THINK').chat(hello(400)), (e: unknown) => e instanceof BudgetExceededError && e.scope === 'run' && e.unit === 'tokens' && e.limit === 300);
      assert.equal(seen.length, 1, 'the second call never reached the model');
    });
  });

  it('estimates input by characters, or by the model counter when it has one, plus maxOutputTokens, priced', async () => {
    const { model } = priced('steps:\n  - text: a\n');
    const e = await estimateCall(model, hello(400));
    assert.equal(e.inputTokens, 100);
    assert.equal(e.outputTokens, 100);
    assert.equal(e.tokens, 200);
    assert.equal(e.usd, (100 * 3 + 100 * 15) / 1e6);
    const counting: LanguageModel = { ...model, countTokens: async () => 7 };
    assert.equal((await estimateCall(counting, hello(400))).inputTokens, 7);
    const withSchema = await estimateCall(model, { ...hello(400), responseFormat: { name: 'v', schema: z.object({ verdict: z.enum(['PASS', 'FAIL']) }) } });
    assert.ok(withSchema.inputTokens > 100, 'the output schema is part of the input');
    assert.equal((await estimateCall(model, { messages: hello(4).messages })).outputTokens, 4096, 'the default max output when the call sets none');
  });

  it('refuses a call over the per-call cap without making it, with a typed error naming the cap', async () => {
    const { model, seen } = priced('steps:\n  - text: a\n');
    const ledger = new BudgetLedger({ call: { tokens: 150 }, phase: {}, run: {} });
    await assert.rejects(ledger.guard(model, 'OBSERVE').chat(hello(400)), (e: unknown) => {
      assert.ok(e instanceof BudgetExceededError);
      assert.equal(e.scope, 'call');
      assert.equal(e.unit, 'tokens');
      assert.equal(e.limit, 150);
      assert.equal(e.spent, 0);
      assert.equal(e.estimate, 200);
      assert.match(e.message, /token cap of 150 tokens for one call/);
      return true;
    });
    assert.equal(seen.length, 0, 'the refused call never reached the model');
    assert.equal(ledger.refusals.length, 1);
  });

  it('accumulates actual usage per phase and per run, and refuses what would pass the money caps', async () => {
    const { model, seen } = priced(
      [
        'steps:',
        '  - { text: a, usage: { inputTokens: 1000, outputTokens: 1000 } }',
        '  - { text: b, usage: { inputTokens: 1000, outputTokens: 1000 } }',
        '  - { text: c, usage: { inputTokens: 10, outputTokens: 10 } }',
      ].join('\n'),
    );
    // Each call here actually costs $0.018; its estimate (100 in + 100 out) is $0.0018.
    const ledger = new BudgetLedger({ call: {}, phase: { usd: 0.03 }, run: { usd: 0.037 } });
    await ledger.guard(model, 'THINK').chat(hello(400));
    assert.deepEqual(ledger.spent, { tokens: 2000, usd: 0.018 });
    assert.deepEqual(ledger.spentIn('THINK'), { tokens: 2000, usd: 0.018 });
    await ledger.guard(model, 'THINK').chat(hello(400));
    await assert.rejects(ledger.guard(model, 'THINK').chat(hello(400)), (e: unknown) => e instanceof BudgetExceededError && e.scope === 'phase' && e.unit === 'usd' && e.phase === 'THINK' && e.spent === 0.036);
    assert.deepEqual(ledger.spentIn('PLAN'), { tokens: 0, usd: 0 });
    await assert.rejects(ledger.guard(model, 'PLAN').chat(hello(400)), (e: unknown) => e instanceof BudgetExceededError && e.scope === 'run' && e.limit === 0.037);
    assert.equal(seen.length, 2);
  });

  it('holds the estimates of calls in flight so parallel calls cannot overshoot together', async () => {
    const { model, seen } = priced('steps:\n  - { text: a, delayMs: 30 }\n  - { text: b, delayMs: 30 }\n  - { text: c }\n');
    const ledger = new BudgetLedger({ call: {}, phase: {}, run: { tokens: 450 } });
    const calls = [0, 1, 2].map(() => ledger.guard(model).chat(hello(400)).then(() => 'ok', (e: unknown) => (e instanceof BudgetExceededError ? 'refused' : 'other')));
    assert.deepEqual(await Promise.all(calls), ['ok', 'ok', 'refused']);
    assert.equal(seen.length, 2);
  });

  it('frees the estimate of a call that failed, and counts nothing for it', async () => {
    const { model } = priced('steps:\n  - error: { kind: server }\n  - text: ok\n');
    const ledger = new BudgetLedger({ call: {}, phase: {}, run: { tokens: 250 } });
    await assert.rejects(ledger.guard(model).chat(hello(400)), LlmProviderError);
    assert.deepEqual(ledger.spent, { tokens: 0, usd: 0 });
    assert.equal((await ledger.guard(model).chat(hello(400))).text, 'ok');
  });

  describe('through the router', () => {
    const config: LlmConfigInput = {
      version: 1,
      providers: [
        { id: 'ollama', kind: 'scripted', script: 'local.yaml', class: 'local' },
        { id: 'cloud', kind: 'scripted', script: 'frontier.yaml', class: 'frontier' },
      ],
      models: [
        { id: 'small', provider: 'ollama', model: 'qwen', maxOutputTokens: 50 },
        { id: 'big', provider: 'cloud', model: 'gpt', prices: { inputPerMTok: 10, outputPerMTok: 10 } },
      ],
      routing: { default: 'small', escalation: { afterFailures: 1 } },
    };

    it('checks the repair attempt of structured output too', async () => {
      const scripts: Record<string, string> = {
        'local.yaml': "steps:\n  - { text: 'not json', usage: { inputTokens: 100, outputTokens: 50 } }\n  - text: never\n",
        'frontier.yaml': 'steps:\n  - text: never\n',
      };
      const ledger = new BudgetLedger({ call: {}, phase: {}, run: { tokens: 200 } });
      const router = new ModelRouter(await resolveModels(config, { readText: async (p) => scripts[p]! }), { budget: ledger });
      const schema = z.object({ verdict: z.enum(['PASS', 'FAIL']) });
      await assert.rejects(router.generateObject('verifier', 'FAST', { messages: [{ role: 'user', content: 'judge' }], schema, name: 'verdict' }), (e: unknown) => e instanceof BudgetExceededError && e.scope === 'run' && e.spent === 150);
      assert.deepEqual(ledger.remaining(), { run: { tokens: 50 } }, 'the refused repair spent nothing');
    });

    it('checks every routed call against the ledger, per phase, and neither retries nor escalates a refusal', async () => {
      const scripts: Record<string, string> = {
        'local.yaml': 'steps:\n  - { text: one, usage: { inputTokens: 100, outputTokens: 20 } }\n  - text: never\n',
        'frontier.yaml': 'steps:\n  - text: never\n',
      };
      const ledger = BudgetLedger.forLevel('INSTANT', { phase: { tokens: 250 }, call: { tokens: null }, run: { tokens: null } });
      const usage: RoutedUsage[] = [];
      const router = new ModelRouter(await resolveModels(config, { readText: async (p) => scripts[p]! }), { budget: ledger, onUsage: (u) => usage.push(u) });
      const req = { messages: [{ role: 'user' as const, content: 'y'.repeat(400) }], phase: 'OBSERVE' as const };
      await router.chat('manager', 'INSTANT', req);
      assert.deepEqual(ledger.spentIn('OBSERVE'), { tokens: 120, usd: 0 });
      assert.equal(usage[0]!.phase, 'OBSERVE');
      // 120 spent + (100 in + 50 out, the model's configured maxOutputTokens) = 270 > 250
      await assert.rejects(router.chat('manager', 'INSTANT', req), (e: unknown) => e instanceof BudgetExceededError && e.scope === 'phase' && e.estimate === 150 && e.spent === 120);
      assert.equal(router.escalations.length, 0);
      assert.equal(router.route('manager', 'INSTANT').id, 'small');
      await router.chat('manager', 'INSTANT', { ...req, phase: 'THINK' });
    });
  });
});
