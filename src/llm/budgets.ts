import { z } from 'zod';
import { parseYamlDataFile } from '../core/data-file';
import type { Logger } from '../core/log';
import { EFFORT_LEVELS, type EffortLevel } from '../core/model';
import shippedBudgets from './data/budgets.yaml';
import { BudgetExceededError, BUDGET_SCOPES, type BudgetScope, type BudgetUnit } from './errors';
import { costOf, type PriceTable } from './prices';
import { DEFAULT_MAX_OUTPUT_TOKENS } from './providers/common';
import { estimateTokens } from './providers/sdk-errors';
import { toJsonSchema } from './json-schema';
import type { ChatRequest, LanguageModel, TokenUsage } from './types';

export const SHIPPED_BUDGETS_FILE = 'budgets.yaml (shipped)';

/** One scope's caps; a missing cap means none. */
export const BudgetCaps = z
  .object({
    tokens: z.number().int().positive().optional(),
    usd: z.number().nonnegative().optional(),
  })
  .strict();
export type BudgetCaps = z.infer<typeof BudgetCaps>;

export const BudgetLimits = z.object({ call: BudgetCaps, phase: BudgetCaps, run: BudgetCaps }).strict();
export type BudgetLimits = z.infer<typeof BudgetLimits>;

export const BudgetTable = z
  .object({
    version: z.literal(1),
    levels: z.object(Object.fromEntries(EFFORT_LEVELS.map((l) => [l, BudgetLimits])) as Record<EffortLevel, typeof BudgetLimits>).strict(),
  })
  .strict();
export type BudgetTable = z.infer<typeof BudgetTable>;

/** An override of some caps: a number replaces the cap, `null` removes it. */
const CapsOverride = z.object({ tokens: z.number().int().positive().nullable().optional(), usd: z.number().nonnegative().nullable().optional() }).strict();
export const BudgetOverride = z.object({ call: CapsOverride.optional(), phase: CapsOverride.optional(), run: CapsOverride.optional() }).strict();
export type BudgetOverride = z.infer<typeof BudgetOverride>;

/** The editor's budget settings: one cap per scope and unit, for every effort level. */
export interface BudgetSettings {
  readonly callTokens?: number | null;
  readonly callUsd?: number | null;
  readonly phaseTokens?: number | null;
  readonly phaseUsd?: number | null;
  readonly runTokens?: number | null;
  readonly runUsd?: number | null;
}

/**
 * The budget settings as an override. A setting left empty, 0, or not a usable number
 * means "the level's cap" (from the models file's `budgets:`, else budgets.yaml): a
 * setting can tighten or loosen a cap, not remove it.
 */
export function budgetOverrideFromSettings(settings: BudgetSettings): BudgetOverride {
  const tokens = (value: number | null | undefined) => (typeof value === 'number' && Number.isFinite(value) && value >= 1 ? Math.floor(value) : undefined);
  const usd = (value: number | null | undefined) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined);
  const override: { [S in BudgetScope]?: { tokens?: number; usd?: number } } = {};
  for (const scope of BUDGET_SCOPES) {
    const caps = { tokens: tokens(settings[`${scope}Tokens`]), usd: usd(settings[`${scope}Usd`]) };
    const set = Object.fromEntries(Object.entries(caps).filter(([, v]) => v !== undefined));
    if (Object.keys(set).length > 0) override[scope] = set;
  }
  return override;
}

let shipped: BudgetTable | undefined;

/** The budget table shipped with the extension. It is tested, so a problem here is a bug. */
export function shippedBudgetTable(): BudgetTable {
  if (!shipped) {
    const parsed = parseYamlDataFile(SHIPPED_BUDGETS_FILE, shippedBudgets, BudgetTable);
    if (!parsed.ok) throw new Error(`shipped budget table is invalid: ${parsed.problems.map((p) => p.message).join('; ')}`);
    shipped = parsed.value;
  }
  return shipped;
}

/**
 * The caps of an effort level: the table's (shipped by default) with overrides on top, later
 * ones winning (e.g. the model configuration's `budgets`, then the editor's settings).
 */
export function budgetFor(level: EffortLevel, overrides: BudgetOverride | readonly (BudgetOverride | undefined)[] = [], table: BudgetTable = shippedBudgetTable()): BudgetLimits {
  const base = table.levels[level];
  const list = Array.isArray(overrides) ? overrides : [overrides as BudgetOverride];
  const merged = {} as Record<BudgetScope, BudgetCaps>;
  for (const scope of BUDGET_SCOPES) {
    const caps: { tokens?: number; usd?: number } = { ...base[scope] };
    for (const override of list) {
      for (const unit of ['tokens', 'usd'] as const) {
        const value = override?.[scope]?.[unit];
        if (value === null) delete caps[unit];
        else if (value !== undefined) caps[unit] = value;
      }
    }
    merged[scope] = caps;
  }
  return merged;
}

export interface Spend {
  readonly tokens: number;
  readonly usd: number;
}

/** What a call could spend at most: its input plus all the output it may produce. */
export interface CallEstimate extends Spend {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * Estimates a call before it is made: input tokens by the model's own counter when it has
 * one, else about four characters a token (messages, tool and output schemas); output
 * tokens are the call's `maxOutputTokens` (or the model's default); priced by the table.
 */
export async function estimateCall(model: LanguageModel, request: ChatRequest, options: { prices?: PriceTable; defaultMaxOutputTokens?: number } = {}): Promise<CallEstimate> {
  const schemas = [...(request.tools ?? []).map((t) => `${t.name} ${t.description} ${JSON.stringify(toJsonSchema(t.parameters))}`)];
  if (request.responseFormat) schemas.push(JSON.stringify(toJsonSchema(request.responseFormat.schema)));
  const text = [...request.messages.map((m) => m.content), ...schemas].join('\n');
  let inputTokens = estimateTokens(text);
  if (model.countTokens) {
    try {
      inputTokens = await model.countTokens(text, request.signal);
    } catch {
      // Counting is an optimisation; the estimate stands.
    }
  }
  const outputTokens = request.maxOutputTokens ?? options.defaultMaxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const { costUsd } = costOf(model, { inputTokens, outputTokens }, options.prices);
  return { inputTokens, outputTokens, tokens: inputTokens + outputTokens, usd: costUsd };
}

/** A call admitted by the ledger: its estimate is held until the call settles or is released. */
export interface Reservation {
  readonly estimate: CallEstimate;
  readonly phase?: string;
}

export interface LedgerOptions {
  readonly prices?: PriceTable;
  readonly logger?: Logger;
}

const ZERO: Spend = { tokens: 0, usd: 0 };

/**
 * Keeps one run's token and money spending against its caps. Calls are admitted by
 * estimate (held while in flight, so parallel calls cannot overshoot together) and
 * accounted by their actual usage when they return. One ledger per run.
 */
export class BudgetLedger {
  private runSpent: Spend = ZERO;
  private readonly phaseSpent = new Map<string, Spend>();
  private readonly held = new Set<Reservation>();
  /** Calls refused, for the run's history. */
  readonly refusals: BudgetExceededError[] = [];

  constructor(
    readonly limits: BudgetLimits,
    private readonly options: LedgerOptions = {},
  ) {}

  /** A ledger with an effort level's caps (shipped table plus override). */
  static forLevel(level: EffortLevel, overrides?: BudgetOverride | readonly (BudgetOverride | undefined)[], options?: LedgerOptions & { table?: BudgetTable }): BudgetLedger {
    return new BudgetLedger(budgetFor(level, overrides, options?.table), options);
  }

  /** What is left in the run and, given a phase, in that phase (undefined: no cap), for the budget bar. */
  remaining(phase?: string): { run: Partial<Spend>; phase?: Partial<Spend> } {
    const left = (caps: BudgetCaps, spent: Spend): Partial<Spend> => ({
      ...(caps.tokens !== undefined ? { tokens: Math.max(0, caps.tokens - spent.tokens) } : {}),
      ...(caps.usd !== undefined ? { usd: Math.max(0, Math.round((caps.usd - spent.usd) * 1e9) / 1e9) } : {}),
    });
    return { run: left(this.limits.run, this.runSpent), ...(phase !== undefined ? { phase: left(this.limits.phase, this.spentIn(phase)) } : {}) };
  }

  /** Spent by the whole run so far (settled calls only). */
  get spent(): Spend {
    return this.runSpent;
  }

  spentIn(phase: string): Spend {
    return this.phaseSpent.get(phase) ?? ZERO;
  }

  /** Estimates the call and holds its estimate, or throws `BudgetExceededError` without holding anything. */
  async admit(model: LanguageModel, request: ChatRequest, phase?: string, defaultMaxOutputTokens?: number): Promise<Reservation> {
    const estimate = await estimateCall(model, request, { prices: this.options.prices, defaultMaxOutputTokens });
    return this.reserve(model.displayName, estimate, phase);
  }

  /** Holds an estimate, or throws `BudgetExceededError`: the call cap first, then the phase, then the run. */
  reserve(modelName: string, estimate: CallEstimate, phase?: string): Reservation {
    const inFlight = (filter: (r: Reservation) => boolean): Spend => sum([...this.held].filter(filter).map((r) => r.estimate));
    const scopes: [BudgetScope, Spend][] = [
      ['call', ZERO],
      ['phase', phase === undefined ? ZERO : sum([this.spentIn(phase), inFlight((r) => r.phase === phase)])],
      ['run', sum([this.runSpent, inFlight(() => true)])],
    ];
    for (const [scope, spent] of scopes) {
      if (scope === 'phase' && phase === undefined) continue;
      for (const unit of ['tokens', 'usd'] as const satisfies readonly BudgetUnit[]) {
        const limit = this.limits[scope][unit];
        if (limit !== undefined && spent[unit] + estimate[unit] > limit) {
          const error = new BudgetExceededError(modelName, scope, unit, limit, spent[unit], estimate[unit], phase);
          this.refusals.push(error);
          this.options.logger?.warn(error.message);
          throw error;
        }
      }
    }
    const reservation: Reservation = { estimate, phase };
    this.held.add(reservation);
    return reservation;
  }

  /** Accounts a returned call by its actual usage and frees its estimate. */
  settle(reservation: Reservation, model: LanguageModel, usage: TokenUsage): Spend {
    this.held.delete(reservation);
    const actual: Spend = { tokens: usage.inputTokens + usage.outputTokens, usd: costOf(model, usage, this.options.prices).costUsd };
    this.runSpent = sum([this.runSpent, actual]);
    if (reservation.phase !== undefined) this.phaseSpent.set(reservation.phase, sum([this.spentIn(reservation.phase), actual]));
    return actual;
  }

  /** Frees the estimate of a call that failed without usage. */
  release(reservation: Reservation): void {
    this.held.delete(reservation);
  }

  /**
   * The model wrapped so that every call through it is admitted and settled here (each
   * attempt of a structured-output repair included). Identity and counting pass through.
   */
  guard(model: LanguageModel, phase?: string, defaultMaxOutputTokens?: number): LanguageModel {
    const guarded: LanguageModel = {
      id: model.id,
      providerId: model.providerId,
      kind: model.kind,
      model: model.model,
      modelClass: model.modelClass,
      displayName: model.displayName,
      price: model.price,
      chat: async (request) => {
        const reservation = await this.admit(model, request, phase, defaultMaxOutputTokens);
        try {
          const response = await model.chat(request);
          this.settle(reservation, model, response.usage);
          return response;
        } catch (error) {
          this.release(reservation);
          throw error;
        }
      },
      ...(model.countTokens ? { countTokens: (text: string, signal?: AbortSignal) => model.countTokens!(text, signal) } : {}),
    };
    return guarded;
  }
}

function sum(spends: readonly Spend[]): Spend {
  let tokens = 0;
  let usd = 0;
  for (const s of spends) {
    tokens += s.tokens;
    usd += s.usd;
  }
  return { tokens, usd: Math.round(usd * 1e9) / 1e9 };
}
