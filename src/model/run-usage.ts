import type { Phase } from './run';
import type { RunEvent } from './run-event';

/**
 * What a run spent, from its `model` events (one a model call): input tokens split as billed
 * (fresh, read from the prompt cache, written to it), output tokens and dollars, for the whole
 * run and per phase. The run's JSON answer, its bundle, the Runs view and the ISC table header
 * all read it from here.
 */
/** Tokens of a run or a phase as billed: fresh input, read from the cache, written to it, output; and dollars. */
export interface UsageTotals {
  readonly fresh: number;
  readonly cached: number;
  readonly written: number;
  readonly output: number;
  readonly usd: number;
}

/** A run's spending from its model events: the whole run, and each phase that called a model. */
export interface RunUsage extends UsageTotals {
  readonly phases: Readonly<Partial<Record<Phase, UsageTotals>>>;
}

const NONE: UsageTotals = { fresh: 0, cached: 0, written: 0, output: 0, usd: 0 };

function add(a: UsageTotals, e: RunEvent): UsageTotals {
  const cached = e.cachedInputTokens ?? 0;
  const written = e.cacheWriteTokens ?? 0;
  return {
    fresh: a.fresh + Math.max(0, e.inputTokens - cached - written),
    cached: a.cached + cached,
    written: a.written + written,
    output: a.output + e.outputTokens,
    // Summed in billionths of a dollar (the unit costOf rounds to), so many small calls add up exactly.
    usd: Math.round((a.usd + e.costUsd) * 1e9) / 1e9,
  };
}

/** What a run spent, from its `model` events (each call's usage record). */
export function runUsage(events: readonly RunEvent[]): RunUsage {
  let total = NONE;
  const phases: Partial<Record<Phase, UsageTotals>> = {};
  for (const e of events) {
    if (e.kind !== 'model') continue;
    total = add(total, e);
    if (e.phase) phases[e.phase] = add(phases[e.phase] ?? NONE, e);
  }
  return { ...total, phases };
}

/** "12,400 in (9,800 cached, 1,200 written) / 800 out, $0.0213": one line for a run's header. */
export function usageLine(u: UsageTotals): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const input = u.fresh + u.cached + u.written;
  const cache = u.cached > 0 || u.written > 0 ? ` (${n(u.cached)} cached, ${n(u.written)} written)` : '';
  return `${n(input)} tokens in${cache} / ${n(u.output)} out, $${u.usd.toFixed(u.usd >= 1 ? 2 : 4)}`;
}
