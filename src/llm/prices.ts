import { z } from 'zod';
import { findModel, shippedCatalogue, type Catalogue, type CatalogueEntry } from './catalogue';
import type { LanguageModel, ModelPrice, TokenUsage } from './types';

/**
 * What a call costs. The one source of prices is the model catalogue (data/models.yaml and
 * a workspace's `catalogue:` entries), found by exact name or alias, never by prefix; a price
 * configured for a model in the models file (`prices:`) wins over it.
 */

export const ModelPriceSchema = z
  .object({
    inputPerMTok: z.number().nonnegative(),
    outputPerMTok: z.number().nonnegative(),
  })
  .strict();

/**
 * Where prices come from, under the name the `prices` options have always had: a catalogue.
 * Absent, the shipped one; a model's own profile (built from the run's catalogue, workspace
 * entries included) is read first.
 */
export type PriceTable = Catalogue;

/** What pricing reads of a model. */
export type PricedModel = Pick<LanguageModel, 'model' | 'modelClass' | 'price' | 'kind'> & Partial<Pick<LanguageModel, 'profile'>>;

/** US dollars per million tokens; cached input is what a prompt-cache read costs, when priced apart. */
export interface UnitPrice extends ModelPrice {
  readonly cachedInputPerMTok?: number;
}

/** Usage as pricing reads it: `cachedInputTokens` (a part of `inputTokens`) when a provider reports prompt-cache reads. */
export interface PricedUsage extends TokenUsage {
  readonly cachedInputTokens?: number;
}

export interface Cost {
  readonly costUsd: number;
  /** False when no price was found: the cost is then 0 and should be shown as unknown. */
  readonly priced: boolean;
}

const FREE: UnitPrice = { inputPerMTok: 0, outputPerMTok: 0 };

/**
 * The catalogue entry of a hosted model: its profile's (resolved against the run's catalogue),
 * else its exact name in `catalogue` (the shipped one by default). Scripted models and models
 * VS Code provides have none: the latter are billed by whoever provides them (e.g. a Copilot
 * plan), not per token at API prices, even when their name is catalogued.
 */
export function catalogueEntryOf(model: PricedModel, catalogue?: Catalogue): CatalogueEntry | undefined {
  if (model.kind === 'scripted' || model.kind === 'vscode-lm') return undefined;
  return model.profile?.entry ?? findModel(catalogue ?? shippedCatalogue(), model.model);
}

/**
 * The price of a model: configured, else free for local and scripted models, else its
 * catalogue entry's; undefined when unknown (the cost of its calls cannot be known).
 */
export function priceOf(model: PricedModel, catalogue?: Catalogue): UnitPrice | undefined {
  if (model.price) return model.price;
  if (model.modelClass === 'local' || model.kind === 'scripted') return FREE;
  const entry = catalogueEntryOf(model, catalogue);
  if (!entry) return undefined;
  const { input, output, cachedInput } = entry.prices;
  return { inputPerMTok: input, outputPerMTok: output, ...(cachedInput !== undefined ? { cachedInputPerMTok: cachedInput } : {}) };
}

/** What a call cost; cached input tokens at the cached price when there is one, else at the input price. */
export function costOf(model: PricedModel, usage: PricedUsage, catalogue?: Catalogue): Cost {
  const price = priceOf(model, catalogue);
  if (!price) return { costUsd: 0, priced: false };
  const cached = Math.min(usage.inputTokens, Math.max(0, usage.cachedInputTokens ?? 0));
  const micro = (usage.inputTokens - cached) * price.inputPerMTok + cached * (price.cachedInputPerMTok ?? price.inputPerMTok) + usage.outputTokens * price.outputPerMTok;
  return { costUsd: Math.round((micro / 1_000_000) * 1e9) / 1e9, priced: true };
}
