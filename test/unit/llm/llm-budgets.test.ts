import * as assert from 'node:assert/strict';
import { z } from 'zod';
import { shippedRoles } from '../../../src/algorithm/roles';
import { MemoryLogger } from '../../../src/model/log';
import { EFFORT_LEVELS } from '../../../src/model';
import { budgetFor, BudgetLedger, budgetOverrideFromSettings, estimateCall, MIN_USEFUL_OUTPUT_TOKENS, moneyCapNotices, shippedBudgetTable } from '../../../src/llm/budgets';
import { CatalogueEntry, extendCatalogue, profileFor, shippedCatalogue } from '../../../src/llm/catalogue';
import { parseLlmConfig, type LlmConfigInput } from '../../../src/llm/config';
import { BudgetExceededError, LlmProviderError } from '../../../src/llm/errors';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter, type RoutedUsage } from '../../../src/llm/router';
import type { ChatRequest, LanguageModel } from '../../../src/llm/types';

/**
 * A hosted model that answers from a script, recording the requests it saw. Priced as given
 * (the models file's `prices:`), or with `price: null` by the catalogue under its name.
 */
function priced(yaml: string, price: { inputPerMTok: number; outputPerMTok: number } | null = { inputPerMTok: 3, outputPerMTok: 15 }, extra: Partial<LanguageModel> = {}) {
  const inner = ScriptedModel.fromText('budget.yaml', yaml, { id: 'big', modelClass: 'frontier' });
  const seen: ChatRequest[] = [];
  const model: LanguageModel = {
    id: inner.id,
    providerId: 'cloud',
    kind: 'openai',
    model: 'claude-sonnet-4-6',
    modelClass: 'frontier',
    displayName: 'claude-sonnet-4-6',
    ...(price ? { price } : {}),
    chat: (request) => (seen.push(request), inner.chat(request)),
    ...extra,
  };
  return { model, seen };
}

/** Claude Sonnet 4.6 priced by the shipped catalogue ($3/$15), as a run meets it. */
const sonnet46 = (yaml = 'steps:\n  - text: ok\n') => priced(yaml, null, { kind: 'anthropic', providerId: 'anthropic', model: 'claude-sonnet-4-6', displayName: 'Claude Sonnet 4.6' });

/** A prompt of about `tokens` tokens (four characters each) asking for up to `maxOutputTokens`. */
const prompt = (tokens: number, maxOutputTokens?: number): ChatRequest => ({ messages: [{ role: 'user', content: 'x'.repeat(tokens * 4) }], ...(maxOutputTokens ? { maxOutputTokens } : {}) });

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

  it('ships money caps that hold the calls of the dearest flagship models, by the rules in budgets.yaml', () => {
    // $5 in / $30 out: GPT-5.6 Sol at list price, GPT-5.5 (see the file's header).
    const dearest = { inputPerMTok: 5, outputPerMTok: 30 };
    const output = (level: string) => (level === 'INSTANT' ? MIN_USEFUL_OUTPUT_TOKENS : shippedRoles().manager.policy.maxOutputTokens);
    for (const level of EFFORT_LEVELS) {
      const l = shippedBudgetTable().levels[level];
      const call = ((l.call.tokens! / 2) * dearest.inputPerMTok + output(level) * dearest.outputPerMTok) / 1e6;
      assert.ok(l.call.usd! >= call, `${level}: a call cap of $${l.call.usd} holds a call of $${call}`);
      assert.ok(l.phase.usd! >= 5 * l.call.usd!, `${level}: a phase holds five calls`);
      assert.ok(l.run.usd! >= 2.5 * l.phase.usd!, `${level}: a run holds two and a half phases`);
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

  describe('fitting each call to what is left', () => {
    it('admits an INSTANT manager call on Claude Sonnet 4.6 with its output cap cut to what the call cap pays for', async () => {
      const managerCap = shippedRoles().manager.policy.maxOutputTokens;
      const { model, seen } = sonnet46();
      const ledger = BudgetLedger.forLevel('INSTANT');
      // 8,000 tokens in at $3 = $0.024; 4,000 out at $15 = $0.06; together over the $0.08 call cap.
      await ledger.guard(model, 'OBSERVE').chat(prompt(8000, managerCap));
      assert.equal(seen.length, 1, 'the call was made');
      assert.equal(seen[0]!.maxOutputTokens, Math.floor((0.08 - 0.024) / 15e-6), 'made with what the $0.08 left after its input pays for');
      assert.ok(seen[0]!.maxOutputTokens! < managerCap);
      // The case: the old $0.03 cap and a 2,000-token prompt ($0.006) leave $0.024, 1,600 tokens.
      const { model: again, seen: seenAgain } = sonnet46();
      await BudgetLedger.forLevel('INSTANT', { call: { usd: 0.03 } }).guard(again, 'OBSERVE').chat(prompt(2000, managerCap));
      assert.equal(seenAgain[0]!.maxOutputTokens, 1600);
    });

    it('holds the fitted estimate while the call is in flight and counts the actual usage after', async () => {
      const { model, seen } = sonnet46('steps:\n  - { text: ok, usage: { inputTokens: 8000, outputTokens: 500 } }\n');
      const ledger = new BudgetLedger({ call: { usd: 0.05 }, phase: {}, run: { usd: 1 } });
      const reservation = await ledger.admit(model, prompt(8000, 4000), 'PLAN');
      assert.equal(reservation.estimate.outputTokens, Math.floor((0.05 - 0.024) / 15e-6));
      assert.ok(reservation.estimate.usd <= 0.05);
      ledger.release(reservation);
      await ledger.guard(model, 'PLAN').chat(prompt(8000, 4000));
      assert.equal(seen[0]!.maxOutputTokens, reservation.estimate.outputTokens);
      assert.deepEqual(ledger.spent, { tokens: 8500, usd: (8000 * 3 + 500 * 15) / 1e6 });
    });

    it('refuses a call, without making it, when not even the useful floor of output fits', async () => {
      const { model, seen } = sonnet46();
      const ledger = BudgetLedger.forLevel('INSTANT', { call: { usd: 0.03 } });
      // 8,000 tokens in ($0.024) leave $0.006: 400 output tokens, under the 1,024 floor.
      await assert.rejects(ledger.guard(model, 'OBSERVE').chat(prompt(8000, 4000)), (e: unknown) => {
        assert.ok(e instanceof BudgetExceededError);
        assert.equal(e.scope, 'call');
        assert.equal(e.unit, 'usd');
        assert.equal(e.limit, 0.03);
        assert.equal(e.estimate, (8000 * 3 + MIN_USEFUL_OUTPUT_TOKENS * 15) / 1e6, 'the estimate of the smallest useful call');
        return true;
      });
      assert.equal(seen.length, 0);
      // A call that asks for less than the floor is held to its own cap instead.
      const small = new BudgetLedger({ call: { tokens: 8300 }, phase: {}, run: {} });
      await small.guard(model).chat(prompt(8000, 300));
      assert.equal(seen[0]!.maxOutputTokens, 300);
      await assert.rejects(new BudgetLedger({ call: { tokens: 8200 }, phase: {}, run: {} }).guard(model).chat(prompt(8000, 300)), BudgetExceededError);
    });

    it('fits the phase and run caps as well, the tightest one deciding', async () => {
      const { model, seen } = priced('steps:\n  - text: a\n  - text: b\n', { inputPerMTok: 0, outputPerMTok: 10 }, { model: 'house-model' });
      const ledger = new BudgetLedger({ call: { tokens: 100_000 }, phase: { tokens: 6000 }, run: { usd: 0.02 } });
      await ledger.guard(model, 'BUILD').chat(prompt(1000, 8000));
      assert.equal(seen[0]!.maxOutputTokens, 2000, 'the run money cap: $0.02 at $10 per million output tokens');
      await ledger.guard(model, 'EXECUTE').chat(prompt(4500, 8000));
      assert.equal(seen[1]!.maxOutputTokens, 1500, "the phase's 6,000 tokens less the input (the run's money leaves ~2,000)");
    });

    it("never asks for more output than the model's catalogue maximum", async () => {
      const small = CatalogueEntry.parse({ name: 'short-writer', family: 'test', provider: 'anthropic', api: 'anthropic-messages', sampling: false, structuredOutput: 'anthropic-output-format', forcedToolChoice: false, maxOutputTokens: 2000, contextWindow: 200_000, prices: { input: 1, output: 5, readOn: '2026-11-24' } });
      const catalogue = extendCatalogue(shippedCatalogue(), [small]);
      // By the catalogue the ledger is given, for a model without a profile...
      const { model, seen } = priced('steps:\n  - text: a\n', null, { kind: 'anthropic', model: 'short-writer' });
      await new BudgetLedger({ call: {}, phase: {}, run: {} }, { prices: catalogue }).guard(model).chat(prompt(100, 50_000));
      assert.equal(seen[0]!.maxOutputTokens, 2000);
      // ...and by the model's own profile (the run's catalogue), with nothing passed and no caps at all.
      const { model: profiled, seen: seenProfiled } = priced('steps:\n  - text: a\n', null, { kind: 'anthropic', model: 'short-writer', profile: profileFor(catalogue, 'anthropic', 'short-writer', 'anthropic') });
      await new BudgetLedger({ call: {}, phase: {}, run: {} }).guard(profiled).chat(prompt(100));
      assert.equal(seenProfiled[0]!.maxOutputTokens, 2000, 'the default 4,096 is more than the model gives');
      // The shipped catalogue: Sonnet 4.6 gives no more than its entry says.
      const { model: sonnet, seen: seenSonnet } = sonnet46();
      await new BudgetLedger({ call: {}, phase: {}, run: {} }).guard(sonnet).chat(prompt(100, 10_000_000));
      assert.equal(seenSonnet[0]!.maxOutputTokens, shippedCatalogue().models.find((m) => m.name === 'claude-sonnet-4-6')!.maxOutputTokens);
    });

    it('lets a FAST run on the dearest flagship models make its calls whole', async () => {
      const manager = shippedRoles().manager.policy.maxOutputTokens;
      const sol = priced('steps:\n' + '  - { text: a, usage: { inputTokens: 16000, outputTokens: 4000 } }\n'.repeat(5), { inputPerMTok: 5, outputPerMTok: 30 }, { model: 'gpt-5.6-sol' });
      const opus = priced('steps:\n  - text: a\n', null, { kind: 'anthropic', model: 'claude-opus-5-5', displayName: 'Claude Opus 5.5' });
      const ledger = BudgetLedger.forLevel('FAST');
      for (let i = 0; i < 5; i++) await ledger.guard(sol.model, 'EXECUTE').chat(prompt(16_000, manager));
      assert.deepEqual(sol.seen.map((r) => r.maxOutputTokens), [manager, manager, manager, manager, manager], 'five whole calls at list price in one phase');
      await ledger.guard(opus.model, 'VERIFY').chat(prompt(16_000, manager));
      assert.equal(opus.seen[0]!.maxOutputTokens, manager);
    });
  });

  describe('a model without a price', () => {
    const unpriced = () => priced('steps:\n  - text: a\n  - text: b\n', null, { model: 'mystery-9', displayName: 'Mystery 9' });

    it('is named, with the models VS Code provides unpriced, and neither local, scripted nor priced ones', () => {
      const stub = (extra: Partial<LanguageModel>): LanguageModel => ({ id: extra.model!, providerId: 'p', kind: 'openai', model: extra.model!, modelClass: 'frontier', displayName: extra.model!, chat: async () => assert.fail('no call'), ...extra });
      const models = [
        unpriced().model,
        stub({ model: 'copilot-gpt', kind: 'vscode-lm', displayName: 'Copilot GPT' }),
        stub({ model: 'qwen', modelClass: 'local' }),
        ScriptedModel.fromText('demo.yaml', 'steps:\n  - text: hi\n'),
        stub({ model: 'claude-sonnet-4-6', kind: 'anthropic' }),
        stub({ model: 'house', price: { inputPerMTok: 1, outputPerMTok: 2 } }),
        unpriced().model,
      ];
      const notices = moneyCapNotices(models);
      assert.deepEqual(notices.map((n) => [n.modelId, n.model]), [['big', 'mystery-9'], ['copilot-gpt', 'copilot-gpt']]);
      assert.equal(notices[0]!.message, 'cost unknown for Mystery 9: it has no price in the catalogue or the models file, so the money caps cannot hold for its calls (token caps still do)');
      assert.match(notices[1]!.message, /^cost unknown for Copilot GPT: VS Code bills it through its provider .* so the money caps cannot hold/);
    });

    it('is admitted under a money cap, not counted as $0 in silence: the log says so once', async () => {
      const { model, seen } = unpriced();
      const logger = new MemoryLogger();
      const ledger = new BudgetLedger({ call: { usd: 0.000001 }, phase: {}, run: { tokens: 100_000 } }, { logger });
      await ledger.guard(model, 'THINK').chat(prompt(1000, 4000));
      await ledger.guard(model, 'PLAN').chat(prompt(1000, 4000));
      assert.equal(seen.length, 2, 'both calls were made: nothing says they are dear');
      assert.deepEqual(logger.lines, ['warn cost unknown for Mystery 9: it has no price in the catalogue or the models file, so the money caps cannot hold for its calls (token caps still do)']);
      const quiet = new MemoryLogger();
      await new BudgetLedger({ call: {}, phase: {}, run: { tokens: 100_000 } }, { logger: quiet }).guard(unpriced().model).chat(prompt(1000));
      assert.deepEqual(quiet.lines, [], 'with no money cap there is nothing that cannot hold');
    });

    it('is still held to the token caps', async () => {
      const { model, seen } = unpriced();
      const ledger = new BudgetLedger({ call: { usd: 0.01, tokens: 3000 }, phase: {}, run: {} }, { logger: new MemoryLogger() });
      await ledger.guard(model).chat(prompt(1000, 4000));
      assert.equal(seen[0]!.maxOutputTokens, 2000);
    });
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
