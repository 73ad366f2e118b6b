import { z } from 'zod';
import { parseYamlDataFile } from '../core/data-file';
import shippedPrices from './data/prices.yaml';
import type { LanguageModel, ModelPrice, TokenUsage } from './types';

export const SHIPPED_PRICES_FILE = 'prices.yaml (shipped)';

export const ModelPriceSchema = z
  .object({
    inputPerMTok: z.number().nonnegative(),
    outputPerMTok: z.number().nonnegative(),
  })
  .strict();

export const PriceTable = z
  .object({
    version: z.literal(1),
    models: z.record(z.string().min(1), ModelPriceSchema),
  })
  .strict();
export type PriceTable = z.infer<typeof PriceTable>;

let shipped: PriceTable | undefined;

/** The price table shipped with the extension. It is tested, so a problem here is a bug. */
export function shippedPriceTable(): PriceTable {
  if (!shipped) {
    const parsed = parseYamlDataFile(SHIPPED_PRICES_FILE, shippedPrices, PriceTable);
    if (!parsed.ok) throw new Error(`shipped price table is invalid: ${parsed.problems.map((p) => p.message).join('; ')}`);
    shipped = parsed.value;
  }
  return shipped;
}

/** The listed price of a model name: exact, else the longest listed name it starts with. */
export function lookupPrice(table: PriceTable, model: string): ModelPrice | undefined {
  const name = model.trim().toLowerCase();
  const exact = table.models[name];
  if (exact) return exact;
  let best: string | undefined;
  for (const listed of Object.keys(table.models)) {
    if (name.startsWith(`${listed}-`) || name.startsWith(`${listed}:`) || name.startsWith(`${listed}@`)) {
      if (!best || listed.length > best.length) best = listed;
    }
  }
  return best ? table.models[best] : undefined;
}

export interface Cost {
  readonly costUsd: number;
  /** False when no price was found: the cost is then 0 and should be shown as unknown. */
  readonly priced: boolean;
}

/**
 * What a call cost: configured price, else free for local and scripted models, else the
 * table, else unpriced 0. A model VS Code provides (`vscode-lm`) is billed by whoever
 * provides it (e.g. a Copilot plan), not per token at API prices, so without a configured
 * price its cost is unknown (unpriced 0) even when its name is in the table.
 */
export function costOf(model: Pick<LanguageModel, 'model' | 'modelClass' | 'price' | 'kind'>, usage: TokenUsage, table: PriceTable = shippedPriceTable()): Cost {
  const free = model.modelClass === 'local' || model.kind === 'scripted';
  const price = model.price ?? (free ? { inputPerMTok: 0, outputPerMTok: 0 } : model.kind === 'vscode-lm' ? undefined : lookupPrice(table, model.model));
  if (!price) return { costUsd: 0, priced: false };
  const costUsd = (usage.inputTokens * price.inputPerMTok + usage.outputTokens * price.outputPerMTok) / 1_000_000;
  return { costUsd: Math.round(costUsd * 1e9) / 1e9, priced: true };
}
