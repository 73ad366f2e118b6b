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

/**
 * US dollars per million tokens; cached input is what a prompt-cache read costs, cache write
 * what writing costs (5-minute and 1-hour time to live), when priced apart.
 */
export interface UnitPrice extends ModelPrice {
  readonly cachedInputPerMTok?: number;
  readonly cacheWritePerMTok?: number;
  readonly cacheWrite1hPerMTok?: number;
}

/** Usage as pricing reads it: cache reads and writes are parts of `inputTokens`. */
export type PricedUsage = TokenUsage;

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
  const { input, output, cachedInput, cacheWrite, cacheWrite1h } = entry.prices;
  return {
    inputPerMTok: input,
    outputPerMTok: output,
    ...(cachedInput !== undefined ? { cachedInputPerMTok: cachedInput } : {}),
    ...(cacheWrite !== undefined ? { cacheWritePerMTok: cacheWrite } : {}),
    ...(cacheWrite1h !== undefined ? { cacheWrite1hPerMTok: cacheWrite1h } : {}),
  };
}

/** The parts of a call's input as billed: fresh, read from the cache, written for 5 minutes and for 1 hour. */
export function inputParts(usage: PricedUsage): { fresh: number; cached: number; written5m: number; written1h: number } {
  const cached = Math.min(usage.inputTokens, Math.max(0, usage.cachedInputTokens ?? 0));
  const written = Math.min(usage.inputTokens - cached, Math.max(0, usage.cacheWriteTokens ?? 0));
  const written1h = Math.min(written, Math.max(0, usage.cacheWrite1hTokens ?? 0));
  return { fresh: usage.inputTokens - cached - written, cached, written5m: written - written1h, written1h };
}

/**
 * What a call cost. Cache reads at the cached price and cache writes at the write price of
 * their time to live (1-hour writes at the 5-minute price where only that is known); where
 * the catalogue has no such price, at the input price.
 */
export function costOf(model: PricedModel, usage: PricedUsage, catalogue?: Catalogue): Cost {
  const price = priceOf(model, catalogue);
  if (!price) return { costUsd: 0, priced: false };
  const { fresh, cached, written5m, written1h } = inputParts(usage);
  const write = price.cacheWritePerMTok ?? price.inputPerMTok;
  const micro =
    fresh * price.inputPerMTok +
    cached * (price.cachedInputPerMTok ?? price.inputPerMTok) +
    written5m * write +
    written1h * (price.cacheWrite1hPerMTok ?? write) +
    usage.outputTokens * price.outputPerMTok;
  return { costUsd: Math.round((micro / 1_000_000) * 1e9) / 1e9, priced: true };
}
