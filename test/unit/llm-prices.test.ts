import * as assert from 'node:assert/strict';
import { RunEvent } from '../../src/core/model';
import { costOf, lookupPrice, shippedPriceTable } from '../../src/llm/prices';
import { usageRecord, usageToRunEvent } from '../../src/llm/usage';
import { ScriptedModel } from '../../src/llm/providers/scripted';
import type { LanguageModel } from '../../src/llm/types';

const hosted = (model: string, extra: Partial<LanguageModel> = {}) => ({ model, modelClass: 'frontier' as const, kind: 'openai' as const, ...extra });

describe('llm prices and usage accounting', () => {
  it('ships a valid price table', () => {
    const table = shippedPriceTable();
    assert.ok(Object.keys(table.models).length >= 10);
    assert.deepEqual(table.models['gpt-4o-mini'], { inputPerMTok: 0.15, outputPerMTok: 0.6 });
  });

  it('computes cost from the table, matching dated model names by longest prefix', () => {
    const table = shippedPriceTable();
    assert.deepEqual(lookupPrice(table, 'gpt-4o-mini-2024-07-18'), table.models['gpt-4o-mini']);
    assert.deepEqual(lookupPrice(table, 'gpt-4o-2024-08-06'), table.models['gpt-4o']);
    assert.deepEqual(costOf(hosted('gpt-4o'), { inputTokens: 1_000_000, outputTokens: 500_000 }), { costUsd: 7.5, priced: true });
    assert.deepEqual(costOf(hosted('claude-sonnet-4-5-20250929', { kind: 'anthropic' }), { inputTokens: 2000, outputTokens: 1000 }), { costUsd: 0.021, priced: true });
  });

  it('gives an unknown model cost 0 with a flag instead of crashing', () => {
    assert.deepEqual(costOf(hosted('mystery-model-9'), { inputTokens: 5000, outputTokens: 5000 }), { costUsd: 0, priced: false });
  });

  it('lets a configured price win, and charges nothing for local or scripted models', () => {
    assert.deepEqual(costOf(hosted('gpt-4o', { price: { inputPerMTok: 1, outputPerMTok: 2 } }), { inputTokens: 1_000_000, outputTokens: 1_000_000 }), { costUsd: 3, priced: true });
    assert.deepEqual(costOf({ model: 'gpt-4o', modelClass: 'local', kind: 'openai' }, { inputTokens: 1e6, outputTokens: 1e6 }), { costUsd: 0, priced: true });
  });

  it('leaves the cost of a model VS Code provides unknown unless a price is configured, even for a listed name', () => {
    // vscode.lm models are billed by their provider (e.g. a Copilot plan), not at API prices.
    assert.deepEqual(costOf({ model: 'gpt-4o', modelClass: 'frontier', kind: 'vscode-lm' }, { inputTokens: 1e6, outputTokens: 1e6 }), { costUsd: 0, priced: false });
    assert.deepEqual(costOf({ model: 'gpt-4o', modelClass: 'frontier', kind: 'vscode-lm', price: { inputPerMTok: 1, outputPerMTok: 1 } }, { inputTokens: 1e6, outputTokens: 1e6 }), { costUsd: 2, priced: true });
  });

  it('turns a usage record into a valid model RunEvent, scripted models labelled as such', () => {
    const scripted = ScriptedModel.fromText('demo.yaml', 'steps:\n  - text: hi\n');
    const record = usageRecord(scripted, { inputTokens: 12, outputTokens: 3 }, 41.6);
    assert.deepEqual(record, { model: 'scripted: demo', modelId: 'scripted:demo', provider: 'scripted', inputTokens: 12, outputTokens: 3, costUsd: 0, durationMs: 42, priced: true, estimated: false });
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
});
