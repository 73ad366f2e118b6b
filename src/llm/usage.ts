import type { Phase, RunEvent } from '../model';
import type { Catalogue } from './catalogue';
import { costOf, inputParts } from './prices';
import type { LanguageModel, ModelRole, TokenUsage } from './types';

/** What one model call used and cost; every call produces one, the caller keeps it as a RunEvent. */
export interface UsageRecord {
  /** The model name as configured, e.g. "gpt-4.1-mini" (or "scripted: demo" for a script). */
  readonly model: string;
  readonly modelId: string;
  readonly provider: string;
  /** Every input token: fresh, read from the prompt cache and written to it. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Of inputTokens, read from the prompt cache. */
  readonly cachedInputTokens: number;
  /** Of inputTokens, written to the prompt cache. */
  readonly cacheWriteTokens: number;
  readonly costUsd: number;
  readonly durationMs: number;
  /** False when no price was known for the model (costUsd is then 0). */
  readonly priced: boolean;
  /** True when the provider gave no token counts and they were estimated. */
  readonly estimated: boolean;
}

export function usageRecord(model: LanguageModel, usage: TokenUsage, durationMs: number, prices?: Catalogue): UsageRecord {
  const cost = costOf(model, usage, prices);
  const parts = inputParts(usage);
  return {
    model: model.kind === 'scripted' ? model.displayName : model.model,
    modelId: model.id,
    provider: model.providerId,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    cachedInputTokens: parts.cached,
    cacheWriteTokens: parts.written5m + parts.written1h,
    costUsd: cost.costUsd,
    durationMs: Math.max(0, Math.round(durationMs)),
    priced: cost.priced,
    estimated: usage.estimated === true,
  };
}

export interface RunEventContext {
  readonly runId: string;
  readonly seq: number;
  readonly at: string;
  readonly phase?: Phase;
  readonly role?: ModelRole;
  /** What the call was for, e.g. "OBSERVE: criteria"; never the prompt itself. */
  readonly purpose?: string;
}

/** A `model` RunEvent for one call (run events with cost). */
export function usageToRunEvent(record: UsageRecord, ctx: RunEventContext): RunEvent {
  const flags = [record.priced ? '' : 'unpriced', record.estimated ? 'estimated tokens' : ''].filter(Boolean).join(', ');
  const cache = record.cachedInputTokens > 0 || record.cacheWriteTokens > 0 ? ` (${record.cachedInputTokens} cached, ${record.cacheWriteTokens} written)` : '';
  return {
    runId: ctx.runId,
    seq: ctx.seq,
    at: ctx.at,
    phase: ctx.phase,
    kind: 'model',
    message: `${ctx.purpose ? `${ctx.purpose}: ` : ''}${record.model} via ${record.provider}, ${record.inputTokens} in${cache} / ${record.outputTokens} out${flags ? ` (${flags})` : ''}`,
    role: ctx.role,
    model: record.model,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    ...cacheFieldsOf(record),
    costUsd: record.costUsd,
    durationMs: record.durationMs,
  };
}

/** The cache counts of a record or event, present only when there are any (older events have none). */
export function cacheFieldsOf(e: { readonly cachedInputTokens?: number; readonly cacheWriteTokens?: number }): { cachedInputTokens?: number; cacheWriteTokens?: number } {
  return { ...(e.cachedInputTokens ? { cachedInputTokens: e.cachedInputTokens } : {}), ...(e.cacheWriteTokens ? { cacheWriteTokens: e.cacheWriteTokens } : {}) };
}

/** Runs one call and measures it: the reply plus its usage record. Failed calls produce no record. */
export async function metered<T extends { usage: TokenUsage }>(
  model: LanguageModel,
  call: () => Promise<T>,
  prices?: Catalogue,
): Promise<{ result: T; usage: UsageRecord }> {
  const started = performance.now();
  const result = await call();
  return { result, usage: usageRecord(model, result.usage, performance.now() - started, prices) };
}


// A run's totals live in src/model (no zod, no catalogue), where the editor's views read them too.
export { runUsage, usageLine, type RunUsage, type UsageTotals } from '../model/run-usage';
