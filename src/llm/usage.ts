import type { Phase, RunEvent } from '../model';
import type { Catalogue } from './catalogue';
import { costOf } from './prices';
import type { LanguageModel, ModelRole, TokenUsage } from './types';

/** What one model call used and cost; every call produces one, the caller keeps it as a RunEvent. */
export interface UsageRecord {
  /** The model name as configured, e.g. "gpt-4.1-mini" (or "scripted: demo" for a script). */
  readonly model: string;
  readonly modelId: string;
  readonly provider: string;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly durationMs: number;
  /** False when no price was known for the model (costUsd is then 0). */
  readonly priced: boolean;
  /** True when the provider gave no token counts and they were estimated. */
  readonly estimated: boolean;
}

export function usageRecord(model: LanguageModel, usage: TokenUsage, durationMs: number, prices?: Catalogue): UsageRecord {
  const cost = costOf(model, usage, prices);
  return {
    model: model.kind === 'scripted' ? model.displayName : model.model,
    modelId: model.id,
    provider: model.providerId,
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
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

/** A `model` RunEvent for one call (seed 001: run events with cost). */
export function usageToRunEvent(record: UsageRecord, ctx: RunEventContext): RunEvent {
  const flags = [record.priced ? '' : 'unpriced', record.estimated ? 'estimated tokens' : ''].filter(Boolean).join(', ');
  return {
    runId: ctx.runId,
    seq: ctx.seq,
    at: ctx.at,
    phase: ctx.phase,
    kind: 'model',
    message: `${ctx.purpose ? `${ctx.purpose}: ` : ''}${record.model} via ${record.provider}, ${record.inputTokens} in / ${record.outputTokens} out${flags ? ` (${flags})` : ''}`,
    role: ctx.role,
    model: record.model,
    inputTokens: record.inputTokens,
    outputTokens: record.outputTokens,
    costUsd: record.costUsd,
    durationMs: record.durationMs,
  };
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
