import { z } from 'zod';
import { parseYamlDataFile } from '../model/data-file';
import type { Logger } from '../model/log';
import { EFFORT_LEVELS, type EffortLevel } from '../model';
import shippedBudgets from './data/budgets.yaml';
import { BudgetExceededError, BUDGET_SCOPES, type BudgetScope, type BudgetUnit } from './errors';
import type { Catalogue } from './catalogue';
import { catalogueEntryOf, costOf, priceOf, type PricedModel, type UnitPrice } from './prices';
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
  /** False when the model has no price: `usd` is then 0 and no money cap can hold the call. */
  readonly priced: boolean;
}

/**
 * The least output worth making a call for: a ledger that can only leave a call less than
 * this (or less than the call's own smaller cap) refuses it rather than make a call whose
 * answer would be cut off.
 */
export const MIN_USEFUL_OUTPUT_TOKENS = 1024;

/**
 * Estimates a call's input before it is made: by the model's own counter when it has one,
 * else about four characters a token (messages, tool and output schemas).
 */
export async function estimateInputTokens(model: LanguageModel, request: ChatRequest): Promise<number> {
  const schemas = [...(request.tools ?? []).map((t) => `${t.name} ${t.description} ${JSON.stringify(toJsonSchema(t.parameters))}`)];
  if (request.responseFormat) schemas.push(JSON.stringify(toJsonSchema(request.responseFormat.schema)));
  const text = [...request.messages.map((m) => m.content), ...schemas].join('\n');
  if (model.countTokens) {
    try {
      return await model.countTokens(text, request.signal);
    } catch {
      // Counting is an optimisation; the estimate stands.
    }
  }
  return estimateTokens(text);
}

/**
 * Estimates a call before it is made: its input (see `estimateInputTokens`) and its output
 * cap, the call's `maxOutputTokens` (or the model's default), priced from the catalogue.
 */
export async function estimateCall(model: LanguageModel, request: ChatRequest, options: { prices?: Catalogue; defaultMaxOutputTokens?: number } = {}): Promise<CallEstimate> {
  const inputTokens = await estimateInputTokens(model, request);
  const outputTokens = request.maxOutputTokens ?? options.defaultMaxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  return priceEstimate(inputTokens, outputTokens, priceOf(model, options.prices));
}

/** The most output a model can give, as its catalogue entry (or its profile, lessons included) says; undefined: not known. */
export function maxOutputOf(model: PricedModel, catalogue?: Catalogue): number | undefined {
  return model.profile ? model.profile.capabilities.maxOutputTokens : catalogueEntryOf(model, catalogue)?.maxOutputTokens;
}

/** Said, per model the run may call, when the cost of its calls cannot be known. */
export interface MoneyCapNotice {
  /** The model's id in the configuration. */
  readonly modelId: string;
  /** The model name, as usage records give it. */
  readonly model: string;
  readonly message: string;
}

/**
 * The models whose calls no money cap can hold, because nothing prices them: a hosted model
 * that is neither in the catalogue nor priced in the models file, or one VS Code provides
 * without a price in the models file. Local and scripted models cost nothing.
 */
export function moneyCapNotices(models: readonly LanguageModel[], catalogue?: Catalogue): MoneyCapNotice[] {
  const notices: MoneyCapNotice[] = [];
  for (const model of models) {
    if (priceOf(model, catalogue) || notices.some((n) => n.modelId === model.id)) continue;
    notices.push({ modelId: model.id, model: model.kind === 'scripted' ? model.displayName : model.model, message: costUnknownMessage(model) });
  }
  return notices;
}

function costUnknownMessage(model: LanguageModel): string {
  const why = model.kind === 'vscode-lm' ? 'VS Code bills it through its provider (e.g. a Copilot plan) and the models file gives it no price' : 'it has no price in the catalogue or the models file';
  return `cost unknown for ${model.displayName}: ${why}, so the money caps cannot hold for its calls (token caps still do)`;
}

/** A call admitted by the ledger: its estimate is held until the call settles or is released. */
export interface Reservation {
  /** Its output tokens are the cap the call is made with. */
  readonly estimate: CallEstimate;
  readonly phase?: string;
}

export interface LedgerOptions {
  /** Where prices and max outputs come from (absent: a model's own profile, else the shipped catalogue). */
  readonly prices?: Catalogue;
  readonly logger?: Logger;
}

const ZERO: Spend = { tokens: 0, usd: 0 };
const UNITS = ['tokens', 'usd'] as const satisfies readonly BudgetUnit[];

/**
 * Keeps one run's token and money spending against its caps. Each call's output cap is
 * fitted to what is left before it is made (held while in flight, so parallel calls cannot
 * overshoot together) and the call is accounted by its actual usage when it returns. One
 * ledger per run.
 */
export class BudgetLedger {
  private runSpent: Spend = ZERO;
  private readonly phaseSpent = new Map<string, Spend>();
  private readonly held = new Set<Reservation>();
  /** Models already warned of as unpriced under a money cap (once each). */
  private readonly warnedUnpriced = new Set<string>();
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

  /**
   * Fits the call's output cap and holds its estimate, or throws `BudgetExceededError` without
   * holding anything. The cap is the call's own (else `defaultMaxOutputTokens`, else the
   * provider default), at most the model's catalogue maximum, and at most what every cap (the
   * call's, then the phase's, then the run's; tokens, then money at the model's output price)
   * leaves after the estimated input. A call is refused only when what is left is under
   * `MIN_USEFUL_OUTPUT_TOKENS` (or the call's own smaller cap); the error names the first such cap.
   */
  async admit(model: LanguageModel, request: ChatRequest, phase?: string, defaultMaxOutputTokens?: number): Promise<Reservation> {
    const inputTokens = await estimateInputTokens(model, request);
    const price = priceOf(model, this.options.prices);
    const wanted = Math.min(request.maxOutputTokens ?? defaultMaxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS, maxOutputOf(model, this.options.prices) ?? Infinity);
    const floor = Math.min(MIN_USEFUL_OUTPUT_TOKENS, wanted);
    if (!price) this.warnUnpriced(model);
    let outputTokens = wanted;
    for (const [scope, spent] of this.spentByScope(phase)) {
      for (const unit of UNITS) {
        const limit = this.limits[scope][unit];
        if (limit === undefined) continue;
        const room = unit === 'tokens' ? limit - spent.tokens - inputTokens : outputRoom(Math.round((limit - spent.usd) * 1e9) / 1e9, inputTokens, price);
        if (room < floor) {
          const error = new BudgetExceededError(model.displayName, scope, unit, limit, spent[unit], priceEstimate(inputTokens, floor, price)[unit], phase);
          this.refusals.push(error);
          this.options.logger?.warn(error.message);
          throw error;
        }
        // A hair of slack so that binary fractions of a dollar do not cost a whole token.
        outputTokens = Math.min(outputTokens, Math.floor(room + 1e-6));
      }
    }
    const reservation: Reservation = { estimate: priceEstimate(inputTokens, outputTokens, price), phase };
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
   * The model wrapped so that every call through it is fitted, admitted and settled here
   * (each attempt of a structured-output repair included): the call is made with the fitted
   * `maxOutputTokens`. Identity, profile and counting pass through.
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
      ...(model.profile ? { profile: model.profile } : {}),
      chat: async (request) => {
        const reservation = await this.admit(model, request, phase, defaultMaxOutputTokens);
        try {
          const response = await model.chat({ ...request, maxOutputTokens: reservation.estimate.outputTokens });
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

  /** Spent in each scope a call is held to, calls in flight included; the call scope starts empty. */
  private spentByScope(phase: string | undefined): [BudgetScope, Spend][] {
    const inFlight = (filter: (r: Reservation) => boolean): Spend => sum([...this.held].filter(filter).map((r) => r.estimate));
    return [
      ['call', ZERO],
      ...(phase === undefined ? [] : [['phase', sum([this.spentIn(phase), inFlight((r) => r.phase === phase)])] as [BudgetScope, Spend]]),
      ['run', sum([this.runSpent, inFlight(() => true)])],
    ];
  }

  /** A money cap cannot hold a call whose cost is unknown: the call is made (nothing says it is dear), and the log says so once. */
  private warnUnpriced(model: LanguageModel): void {
    const moneyCapped = BUDGET_SCOPES.some((scope) => this.limits[scope].usd !== undefined);
    if (!moneyCapped || this.warnedUnpriced.has(model.id)) return;
    this.warnedUnpriced.add(model.id);
    this.options.logger?.warn(costUnknownMessage(model));
  }
}

/** The output tokens `money` dollars leave room for after the input, at the model's price; unpriced: no limit. */
function outputRoom(money: number, inputTokens: number, price: UnitPrice | undefined): number {
  if (!price) return Infinity;
  const left = money * 1_000_000 - inputTokens * price.inputPerMTok;
  if (left < 0) return -Infinity;
  return price.outputPerMTok > 0 ? left / price.outputPerMTok : Infinity;
}

function priceEstimate(inputTokens: number, outputTokens: number, price: UnitPrice | undefined): CallEstimate {
  const usd = price ? Math.round(((inputTokens * price.inputPerMTok + outputTokens * price.outputPerMTok) / 1_000_000) * 1e9) / 1e9 : 0;
  return { inputTokens, outputTokens, tokens: inputTokens + outputTokens, usd, priced: price !== undefined };
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
