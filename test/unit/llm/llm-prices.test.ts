import * as assert from 'node:assert/strict';
import { RunEvent } from '../../../src/model';
import { CatalogueEntry, extendCatalogue, findModel, shippedCatalogue, type CatalogueEntryInput } from '../../../src/llm/catalogue';
import { costOf, priceOf } from '../../../src/llm/prices';
import { ScriptedModel } from '../../../src/llm/providers/scripted';
import { resolveModels } from '../../../src/llm/resolve';
import { usageRecord, usageToRunEvent } from '../../../src/llm/usage';
import type { LanguageModel } from '../../../src/llm/types';

const hosted = (model: string, extra: Partial<LanguageModel> = {}) => ({ model, modelClass: 'frontier' as const, kind: 'openai' as const, ...extra });
const million = { inputTokens: 1_000_000, outputTokens: 1_000_000 };

/** A catalogue entry with the given name and prices; the other facts do not matter to pricing. */
function entry(name: string, prices: { input: number; output: number; cachedInput?: number }, extra: Partial<CatalogueEntryInput> = {}): CatalogueEntry {
  return CatalogueEntry.parse({
    name,
    family: 'test',
    provider: 'anthropic',
    api: 'anthropic-messages',
    sampling: false,
    structuredOutput: 'anthropic-output-format',
    forcedToolChoice: false,
    maxOutputTokens: 64_000,
    contextWindow: 200_000,
    prices: { ...prices, readOn: '2026-11-24' },
    ...extra,
  });
}

describe('llm prices and usage accounting', () => {
  it('prices a model from the shipped catalogue by its exact name or alias: claude-opus-4-6 at $5/$25', () => {
    assert.deepEqual(costOf(hosted('claude-opus-4-6', { kind: 'anthropic' }), million), { costUsd: 30, priced: true });
    const prices = findModel(shippedCatalogue(), 'claude-opus-4-6')!.prices;
    assert.deepEqual(priceOf(hosted('claude-opus-4-6', { kind: 'anthropic' })), {
      inputPerMTok: 5,
      outputPerMTok: 25,
      cachedInputPerMTok: prices.cachedInput,
      cacheWritePerMTok: prices.cacheWrite,
      cacheWrite1hPerMTok: prices.cacheWrite1h,
    });
    // A dated snapshot is found by its listed alias, not by its prefix.
    const sonnet45 = findModel(shippedCatalogue(), 'claude-sonnet-4-5')!;
    assert.equal(costOf(hosted('claude-sonnet-4-5', { kind: 'anthropic' }), { inputTokens: 2000, outputTokens: 1000 }).costUsd, (2000 * sonnet45.prices.input + 1000 * sonnet45.prices.output) / 1e6);
  });

  it('never matches a name by prefix: claude-opus-4-6 is not claude-opus-4, and an unlisted snapshot is unpriced', () => {
    const catalogue = extendCatalogue(shippedCatalogue(), [entry('claude-opus-4', { input: 15, output: 75 }), entry('claude-opus-4-6', { input: 5, output: 25 })]);
    const anthropic = (name: string) => hosted(name, { kind: 'anthropic' });
    assert.deepEqual(costOf(anthropic('claude-opus-4'), million, catalogue), { costUsd: 90, priced: true });
    assert.deepEqual(costOf(anthropic('claude-opus-4-6'), million, catalogue), { costUsd: 30, priced: true });
    assert.deepEqual(costOf(anthropic('claude-opus-4-7'), million, catalogue), { costUsd: 0, priced: false }, 'not charged as claude-opus-4');
    assert.deepEqual(costOf(anthropic('claude-opus-4-6-20270101'), million, catalogue), { costUsd: 0, priced: false }, 'not charged as claude-opus-4-6');
  });

  it('gives an unknown model cost 0 with a flag instead of crashing', () => {
    assert.deepEqual(costOf(hosted('mystery-model-9'), { inputTokens: 5000, outputTokens: 5000 }), { costUsd: 0, priced: false });
    assert.equal(priceOf(hosted('mystery-model-9')), undefined);
  });

  it('lets a price configured in the models file win over the catalogue', () => {
    assert.deepEqual(costOf(hosted('claude-opus-4-6', { kind: 'anthropic', price: { inputPerMTok: 1, outputPerMTok: 2 } }), million), { costUsd: 3, priced: true });
    assert.deepEqual(costOf(hosted('mystery-model-9', { price: { inputPerMTok: 1, outputPerMTok: 2 } }), million), { costUsd: 3, priced: true });
  });

  it('charges nothing for local or scripted models, even under a catalogued name', () => {
    assert.deepEqual(costOf({ model: 'gpt-5-mini', modelClass: 'local', kind: 'openai' }, million), { costUsd: 0, priced: true });
    assert.deepEqual(costOf(ScriptedModel.fromText('demo.yaml', 'steps:\n  - text: hi\n'), million), { costUsd: 0, priced: true });
  });

  it('leaves the cost of a model VS Code provides unknown unless a price is configured, even for a catalogued name', () => {
    // vscode.lm models are billed by their provider (e.g. a Copilot plan), not at API prices.
    assert.deepEqual(costOf({ model: 'claude-opus-4-6', modelClass: 'frontier', kind: 'vscode-lm' }, million), { costUsd: 0, priced: false });
    assert.deepEqual(costOf({ model: 'claude-opus-4-6', modelClass: 'frontier', kind: 'vscode-lm', price: { inputPerMTok: 1, outputPerMTok: 1 } }, million), { costUsd: 2, priced: true });
  });

  it("prices a workspace's own catalogue entry through the model's profile, with no catalogue passed", async () => {
    const resolved = await resolveModels(
      {
        version: 1,
        providers: [{ id: 'openai', kind: 'openai' }],
        models: [{ id: 'house', provider: 'openai', model: 'house-model-1' }],
        catalogue: [{ ...entry('house-model-1', { input: 7, output: 11 }), provider: 'openai', api: 'responses', structuredOutput: 'json-schema-strict' }],
      },
      { env: { OPENAI_API_KEY: 'sk-test' } },
    );
    const slot = resolved.slots.get('house')!;
    assert.ok(slot.ok);
    assert.deepEqual(costOf(slot.model, million), { costUsd: 18, priced: true });
    assert.deepEqual(costOf(hosted('house-model-1'), million), { costUsd: 0, priced: false }, 'the shipped catalogue does not know it');
  });

  it('charges prompt-cache reads at the cached-input price when the usage reports them, else at the input price', () => {
    const catalogue = extendCatalogue(shippedCatalogue(), [entry('cache-model', { input: 4, output: 20, cachedInput: 0.4 }), entry('plain-model', { input: 4, output: 20 })]);
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cachedInputTokens: 600_000 };
    // 400k fresh x $4 + 600k cached x $0.40 + 100k out x $20 = 1.6 + 0.24 + 2 = $3.84
    assert.deepEqual(costOf(hosted('cache-model', { kind: 'anthropic' }), usage, catalogue), { costUsd: 3.84, priced: true });
    assert.deepEqual(costOf(hosted('plain-model', { kind: 'anthropic' }), usage, catalogue), { costUsd: 6, priced: true }, 'no cached price: all input at the input price');
    assert.deepEqual(costOf(hosted('cache-model', { kind: 'anthropic' }), { inputTokens: 1_000_000, outputTokens: 100_000 }, catalogue), { costUsd: 6, priced: true }, 'no cached tokens reported');
  });

  it('turns a usage record into a valid model RunEvent, scripted models labelled as such', () => {
    const scripted = ScriptedModel.fromText('demo.yaml', 'steps:\n  - text: hi\n');
    const record = usageRecord(scripted, { inputTokens: 12, outputTokens: 3 }, 41.6);
    assert.deepEqual(record, { model: 'scripted: demo', modelId: 'scripted:demo', provider: 'scripted', inputTokens: 12, outputTokens: 3, cachedInputTokens: 0, cacheWriteTokens: 0, costUsd: 0, durationMs: 42, priced: true, estimated: false });
    const event = usageToRunEvent(record, { runId: 'run-abc123', seq: 4, at: '2026-01-01T00:00:00.000Z', phase: 'OBSERVE', role: 'manager', purpose: 'criteria' });
    assert.deepEqual(RunEvent.parse(event), event);
    assert.equal(event.message, 'criteria: scripted: demo via scripted, 12 in / 3 out');
    assert.equal(event.model, 'scripted: demo');
  });

  it('flags unpriced and estimated usage in the event message', () => {
    const model = { id: 'x', providerId: 'p', kind: 'openai', model: 'mystery', modelClass: 'frontier', displayName: 'mystery', chat: async () => { throw new Error('unused'); } } as LanguageModel;
    const event = usageToRunEvent(usageRecord(model, { inputTokens: 1, outputTokens: 1, estimated: true }, 1), { runId: 'run-abc123', seq: 0, at: '2026-01-01T00:00:00.000Z' });
    assert.match(event.message, /\(unpriced, estimated tokens\)$/);
    assert.equal(event.costUsd, 0);
  });

  it('prices cache reads, 5-minute and 1-hour writes apart from fresh input (Anthropic: 0.1x, 1.25x and 2x input)', () => {
    const sonnet = hosted('claude-sonnet-4-6', { kind: 'anthropic' });
    // 1M fresh at $3, 1M read at $0.30, 1M written for 5 minutes at $3.75, 1M for an hour at $6, 1M out at $15.
    const usage = { inputTokens: 4_000_000, cachedInputTokens: 1_000_000, cacheWriteTokens: 2_000_000, cacheWrite1hTokens: 1_000_000, outputTokens: 1_000_000 };
    assert.deepEqual(costOf(sonnet, usage), { costUsd: 3 + 0.3 + 3.75 + 6 + 15, priced: true });
    // OpenAI catalogues no write price: a reported write is billed as input.
    const terra = hosted('gpt-5.6-terra', { kind: 'openai' });
    assert.deepEqual(costOf(terra, { inputTokens: 2_000_000, cachedInputTokens: 1_000_000, cacheWriteTokens: 1_000_000, outputTokens: 0 }), { costUsd: 2 + 0.2, priced: true });
    const record = usageRecord(sonnet as never, usage, 1);
    assert.equal(record.cachedInputTokens, 1_000_000);
    assert.equal(record.cacheWriteTokens, 2_000_000);
  });
});
