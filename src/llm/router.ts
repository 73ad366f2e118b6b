import type { z } from 'zod';
import { isBudgetExceeded, isCancellation } from '../model/errors';
import type { Logger } from '../model/log';
import type { EffortLevel, Phase, RunEvent } from '../model';
import type { BudgetLedger } from './budgets';
import { policyFor, routeFor, type RoleRoute } from './config';
import { LlmConfigError, LlmError, redact, StructuredOutputError } from './errors';
import type { PriceTable } from './prices';
import type { ModelSlot, ResolvedModels } from './resolve';
import { generateObject, type ObjectRequest, type ObjectResult } from './structured';
import type { ChatRequest, ChatResponse, LanguageModel, ModelClass, ModelRole } from './types';
import { metered, type RunEventContext, type UsageRecord } from './usage';
import { CachePace } from './prompt-cache';

export type EscalationReason = 'invalid-output' | 'failure' | 'low-confidence' | 'policy';

/**
 * A role handed from a local model to a frontier one (logged escalation), with
 * what the call made on the frontier model because of it cost. Its numbers repeat that
 * call's usage record: count spending from usage records, not from escalations.
 */
export interface EscalationEvent {
  readonly role: ModelRole;
  readonly level: EffortLevel;
  readonly phase?: Phase;
  /** Model ids. */
  readonly from: string;
  readonly to: string;
  /** The frontier model's name, as usage records give it. */
  readonly model: string;
  readonly reason: EscalationReason;
  /** How many invalid outputs or failures it took (1 for low confidence and policy). */
  readonly count: number;
  /** The confidence that was too low. */
  readonly confidence?: number;
  /** Whether later calls of the role at this level stay on the frontier model (low confidence moves one call). */
  readonly sticky: boolean;
  /** Tokens, cost and latency of the call retried on the frontier model; 0 when none was retried at once. */
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  readonly durationMs: number;
}

/**
 * The model tier a role wants at a level (capabilities.yaml `models:`) could not be honoured,
 * so the role's calls go to the configured route instead; the engine reports it as a run event.
 */
export interface TierNote {
  readonly role: ModelRole;
  readonly level: EffortLevel;
  readonly wanted: ModelClass;
  /** The model used instead (its id). */
  readonly model: string;
  readonly message: string;
}

/** The tier each role should start on at each level; undefined: no preference. */
export type TierPreference = (role: ModelRole, level: EffortLevel) => ModelClass | undefined;

/** A usage record with the role and level it was spent on. */
export interface RoutedUsage extends UsageRecord {
  readonly role: ModelRole;
  readonly level: EffortLevel;
  readonly phase?: Phase;
}

export interface RouterOptions {
  readonly logger?: Logger;
  readonly prices?: PriceTable;
  /** The run's token and money caps; every routed call (each attempt) is checked against it. */
  readonly budget?: BudgetLedger;
  readonly onUsage?: (usage: RoutedUsage) => void;
  readonly onEscalation?: (event: EscalationEvent) => void;
  /**
   * Prompt caching for the run's calls (on unless false): each role's requests carry one
   * cache key of this router (one run) and the time to live the run's pace calls for.
   * Absent: the models file's `promptCache`, else on.
   */
  readonly promptCache?: boolean;
  /** The clock the cache's time to live is paced by; tests pass a fake one. */
  readonly now?: () => number;
}

/** What the router takes besides the request itself. */
export interface RoutedCall<R> {
  /** The run phase the call is for: phase budgets are kept per phase. */
  readonly phase?: Phase;
  /**
   * The answer's confidence, 0–1, as the caller judges it; under the configured threshold
   * a local model's answer is asked again of the frontier model. For structured output
   * the default reads a top-level `confidence` number of the value.
   */
  readonly confidenceOf?: (result: R) => number | undefined;
}

interface SlotState {
  invalidOutputs: number;
  failures: number;
  escalatedTo?: LanguageModel;
}

interface Pending {
  readonly event: Omit<EscalationEvent, 'inputTokens' | 'outputTokens' | 'costUsd' | 'durationMs'>;
  readonly target: LanguageModel;
}

/**
 * Picks the model for a role at an effort level, meters and budgets every call, and moves
 * a role from a local model to a frontier one: after repeated invalid output or failure
 * (for the router's life, one run), for one call whose answer has too little confidence,
 * or always when the role's policy is frontier-only. Every escalation is logged and reported.
 */
export class ModelRouter {
  private readonly states = new Map<string, SlotState>();
  readonly escalations: EscalationEvent[] = [];
  /** Where a level's tier could not be honoured (see `preferTiers`), once per role and level. */
  readonly tierNotes: TierNote[] = [];
  private readonly logger?: Logger;
  private tierFor: TierPreference | undefined;
  private readonly tiersLogged = new Set<string>();
  /** One prompt-cache key per router (one run), so its calls reach the same cache and no other run's. */
  private readonly cacheKey = `ideal-state-${Math.random().toString(36).slice(2, 12)}`;
  private readonly paces = new Map<ModelRole, CachePace>();

  constructor(
    readonly resolved: ResolvedModels,
    private readonly options: RouterOptions = {},
  ) {
    this.logger = options.logger?.child('models');
  }

  /**
   * Starts each role at each level on a model of the tier the level's capabilities name
   * (capabilities.yaml `models: { manager, specialist, verifier }`). A role whose configured
   * route is of another class moves to one of the wanted class: the escalation target for
   * frontier, the first local model for local. A route named for that level in the models
   * file (`routing.levels`) is the user's choice and stays; so does a role's policy
   * (`local-only` never leaves the machine, `frontier-only` never goes local). With no model
   * of the wanted class configured, the configured route serves and a note says so.
   */
  preferTiers(tierFor: TierPreference | undefined): void {
    this.tierFor = tierFor;
  }

  /** The model that serves a role at a level now, escalation and policy included. */
  route(role: ModelRole, level: EffortLevel): LanguageModel {
    const escalated = this.state(role, level).escalatedTo;
    if (escalated) return escalated;
    const model = this.routed(role, level);
    const policy = policyFor(this.resolved.config, role);
    if (policy === 'local-only' && model.modelClass !== 'local') {
      throw new LlmConfigError(`${role} is local-only but at ${level} routes to "${model.id}", a frontier model`);
    }
    if (policy === 'frontier-only' && model.modelClass === 'local') {
      const target = this.escalationTarget();
      if (!target) throw new LlmConfigError(`${role} is frontier-only but no frontier model is available`);
      return target;
    }
    return model;
  }

  async chat(role: ModelRole, level: EffortLevel, request: ChatRequest & RoutedCall<ChatResponse>): Promise<{ response: ChatResponse; usage: UsageRecord; model: LanguageModel }> {
    const { phase, confidenceOf, ...chat } = request;
    return this.withEscalation(role, level, phase, {
      call: async (model) => {
        const { result, usage } = await metered(model, () => this.budgeted(this.cached(model, role), phase).chat(chat), this.prices);
        this.report(usage, role, level, phase);
        return { response: result, usage, model };
      },
      invalidOf: () => 0,
      usageOf: (r) => [r.usage],
      confidenceOf: confidenceOf ? (r) => confidenceOf(r.response) : () => undefined,
    });
  }

  async generateObject<S extends z.ZodType>(
    role: ModelRole,
    level: EffortLevel,
    request: ObjectRequest<S> & RoutedCall<z.output<S>>,
  ): Promise<ObjectResult<z.output<S>> & { model: LanguageModel }> {
    const { phase, confidenceOf, ...ask } = request;
    const confidence = confidenceOf ?? ownConfidence;
    return this.withEscalation(role, level, phase, {
      call: async (model) => ({
        ...(await generateObject(this.budgeted(this.cached(model, role), phase), ask, {
          prices: this.prices,
          onUsage: (u) => this.report(u, role, level, phase),
          onAdjusted: (list) => this.logger?.warn(`${role} at ${level}${phase ? ` (${phase})` : ''} on ${model.displayName}: ${list.map((a) => `${a.path} ${a.given} is out of its bounds, ${a.used} used`).join('; ')}`),
        })),
        model,
      }),
      invalidOf: (r) => r.invalidOutputs,
      usageOf: (r) => r.usage,
      confidenceOf: (r) => confidence(r.value),
    });
  }

  private async withEscalation<T>(
    role: ModelRole,
    level: EffortLevel,
    phase: Phase | undefined,
    how: { call: (model: LanguageModel) => Promise<T>; invalidOf: (r: T) => number; usageOf: (r: T) => readonly UsageRecord[]; confidenceOf: (r: T) => number | undefined },
  ): Promise<T> {
    const state = this.state(role, level);
    const routed = this.routed(role, level);
    const model = this.route(role, level);
    if (!state.escalatedTo && model !== routed) {
      // frontier-only: the first call moves the role for good.
      state.escalatedTo = model;
      return this.retryOn({ event: this.draft(role, level, phase, routed, model, 'policy', 1, true), target: model }, how);
    }
    let result: T;
    try {
      result = await how.call(model);
    } catch (error) {
      // Cancellation is not a failure; a refusal is logged by the ledger.
      const line = redact(`${role} at ${level}${phase ? ` (${phase})` : ''} on ${model.displayName}: ${error instanceof Error ? error.message : String(error)}`);
      if (isCancellation(error) || isBudgetExceeded(error)) this.logger?.debug(line);
      else this.logger?.warn(line);
      if (isCancellation(error) || isBudgetExceeded(error) || !(error instanceof LlmError) || error instanceof LlmConfigError) throw error;
      if (error instanceof StructuredOutputError) state.invalidOutputs += error.attempts;
      else state.failures += 1;
      const pending = this.maybeEscalate(role, level, phase, model, state);
      if (!pending) throw error;
      this.logger?.info(`retrying ${role} at ${level} on ${pending.target.displayName} after ${error.code} on ${model.displayName}`);
      return this.retryOn(pending, how);
    }
    const invalid = how.invalidOf(result);
    if (invalid > 0) {
      state.invalidOutputs += invalid;
      const pending = this.maybeEscalate(role, level, phase, model, state);
      if (pending) this.emit({ ...pending.event, inputTokens: 0, outputTokens: 0, costUsd: 0, durationMs: 0 });
    }
    const confidence = how.confidenceOf(result);
    const threshold = this.resolved.config.routing.escalation.confidenceBelow;
    if (confidence !== undefined && confidence < threshold && this.mayEscalate(role, model)) {
      const target = this.escalationTarget();
      if (!target) {
        this.logger?.warn(`${role} at ${level}: ${model.displayName} answered with confidence ${confidence} and no frontier model is available to ask again`);
        return result;
      }
      return this.retryOn({ event: { ...this.draft(role, level, phase, model, target, 'low-confidence', 1, false), confidence }, target }, how);
    }
    return result;
  }

  /** Makes the call on the escalation target and reports the escalation with that call's usage. */
  private async retryOn<T>(pending: Pending, how: { call: (model: LanguageModel) => Promise<T>; usageOf: (r: T) => readonly UsageRecord[] }): Promise<T> {
    let usage: readonly UsageRecord[] = [];
    try {
      const result = await how.call(pending.target);
      usage = how.usageOf(result);
      return result;
    } finally {
      this.emit({
        ...pending.event,
        inputTokens: usage.reduce((n, u) => n + u.inputTokens, 0),
        outputTokens: usage.reduce((n, u) => n + u.outputTokens, 0),
        costUsd: Math.round(usage.reduce((n, u) => n + u.costUsd, 0) * 1e9) / 1e9,
        durationMs: usage.reduce((n, u) => n + u.durationMs, 0),
      });
    }
  }

  private mayEscalate(role: ModelRole, model: LanguageModel): boolean {
    const rules = this.resolved.config.routing.escalation;
    return rules.enabled && model.modelClass === 'local' && policyFor(this.resolved.config, role) === 'local-first';
  }

  /** Escalates for good when a threshold is reached; returns what the caller should retry on. */
  private maybeEscalate(role: ModelRole, level: EffortLevel, phase: Phase | undefined, model: LanguageModel, state: SlotState): Pending | undefined {
    const rules = this.resolved.config.routing.escalation;
    if (state.escalatedTo || !this.mayEscalate(role, model)) return undefined;
    const byInvalid = state.invalidOutputs >= rules.afterInvalidOutputs;
    const byFailure = state.failures >= rules.afterFailures;
    if (!byInvalid && !byFailure) return undefined;
    const target = this.escalationTarget();
    if (!target) {
      this.logger?.warn(`${role} at ${level}: ${model.displayName} keeps failing and no frontier model is available to escalate to`);
      return undefined;
    }
    state.escalatedTo = target;
    const reason = byInvalid ? 'invalid-output' : 'failure';
    return { event: this.draft(role, level, phase, model, target, reason, byInvalid ? state.invalidOutputs : state.failures, true), target };
  }

  private draft(role: ModelRole, level: EffortLevel, phase: Phase | undefined, from: LanguageModel, to: LanguageModel, reason: EscalationReason, count: number, sticky: boolean): Pending['event'] {
    return { role, level, ...(phase ? { phase } : {}), from: from.id, to: to.id, model: to.kind === 'scripted' ? to.displayName : to.model, reason, count, sticky };
  }

  private emit(event: EscalationEvent): void {
    this.escalations.push(event);
    this.logger?.info(describeEscalation(event));
    this.options.onEscalation?.(event);
  }

  /** Prices of the run's models: the router's own, else the catalogue with the models file's entries. */
  private get prices(): PriceTable | undefined {
    return this.options.prices ?? this.resolved.catalogue;
  }

  /**
   * The model with the role's cache request on every call: one key per run and role (the
   * roles' prompts share no prefix, and one key for all would crowd one machine) and the
   * time to live for the role's pace. A request that says otherwise keeps its own.
   */
  private cached(model: LanguageModel, role: ModelRole): LanguageModel {
    const enabled = (this.options.promptCache ?? this.resolved.config.promptCache) !== false;
    let pace = this.paces.get(role);
    if (!pace) this.paces.set(role, (pace = new CachePace(this.options.now)));
    const key = `${this.cacheKey}-${role}`;
    const paced = pace;
    return Object.assign(Object.create(model) as LanguageModel, {
      chat: (request: ChatRequest) => model.chat({ ...request, cache: request.cache ?? (enabled ? { key, ttl: paced.next() } : false) }),
    });
  }

  private budgeted(model: LanguageModel, phase: Phase | undefined): LanguageModel {
    if (!this.options.budget) return model;
    const configured = this.resolved.config.models.find((m) => m.id === model.id)?.maxOutputTokens;
    return this.options.budget.guard(model, phase, configured);
  }

  private escalationTarget(): LanguageModel | undefined {
    const to = this.resolved.config.routing.escalation.to;
    const candidates: ModelSlot[] = to ? [this.resolved.slots.get(to)!] : [...this.resolved.slots.values()];
    for (const slot of candidates) {
      if (slot?.ok && slot.model.modelClass === 'frontier') return slot.model;
    }
    return undefined;
  }

  private routed(role: ModelRole, level: EffortLevel): LanguageModel {
    const id = routeFor(this.resolved.config, role, level);
    const slot = this.resolved.slots.get(id);
    if (!slot) throw new LlmConfigError(`routing names model "${id}", which is not configured`);
    if (!slot.ok) throw new LlmConfigError(`${role} at ${level} routes to "${id}": ${slot.reason}`);
    return this.tiered(role, level, slot.model);
  }

  /** The configured route, moved to the level's tier for the role when it can be (see `preferTiers`). */
  private tiered(role: ModelRole, level: EffortLevel, configured: LanguageModel): LanguageModel {
    const wanted = this.tierFor?.(role, level);
    if (!wanted || configured.modelClass === wanted) return configured;
    const policy = policyFor(this.resolved.config, role);
    const explicit = explicitRoute(this.resolved.config.routing.levels?.[level], role);
    let why: string | undefined;
    let model: LanguageModel | undefined;
    if (explicit) why = `the models file routes ${role} at ${level} to "${explicit}"`;
    else if (wanted === 'frontier' && policy === 'local-only') why = `${role} is local-only`;
    else if (wanted === 'local' && policy === 'frontier-only') why = `${role} is frontier-only`;
    else {
      model = wanted === 'frontier' ? this.escalationTarget() : this.firstOfClass('local');
      if (!model) why = `no ${wanted} model is configured${wanted === 'frontier' ? '' : ' or available'}`;
    }
    const key = `${role}/${level}`;
    if (model) {
      if (!this.tiersLogged.has(key)) this.logger?.info(`${role} at ${level} starts on ${wanted} model "${model.id}" as the level's capabilities ask (the configured route is ${configured.modelClass} "${configured.id}")`);
      this.tiersLogged.add(key);
      return model;
    }
    if (!this.tiersLogged.has(key)) {
      const message = `${role} at ${level}: the level's capabilities want a ${wanted} model, but ${why}; using ${configured.modelClass} model "${configured.id}"`;
      this.logger?.info(message);
      this.tierNotes.push({ role, level, wanted, model: configured.id, message });
      this.tiersLogged.add(key);
    }
    return configured;
  }

  private firstOfClass(modelClass: ModelClass): LanguageModel | undefined {
    for (const slot of this.resolved.slots.values()) if (slot.ok && slot.model.modelClass === modelClass) return slot.model;
    return undefined;
  }

  private state(role: ModelRole, level: EffortLevel): SlotState {
    const key = `${role}/${level}`;
    let state = this.states.get(key);
    if (!state) this.states.set(key, (state = { invalidOutputs: 0, failures: 0 }));
    return state;
  }

  private report(usage: UsageRecord, role: ModelRole, level: EffortLevel, phase: Phase | undefined): void {
    this.options.onUsage?.({ ...usage, role, level, ...(phase ? { phase } : {}) });
  }
}

function explicitRoute(route: RoleRoute | undefined, role: ModelRole): string | undefined {
  return route === undefined ? undefined : typeof route === 'string' ? route : route[role];
}

/** A top-level `confidence` number between 0 and 1 in a structured answer, if it has one. */
export function ownConfidence(value: unknown): number | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const c = (value as { confidence?: unknown }).confidence;
  return typeof c === 'number' && c >= 0 && c <= 1 ? c : undefined;
}

export function describeEscalation(e: EscalationEvent): string {
  const why =
    e.reason === 'invalid-output'
      ? `after ${e.count} invalid outputs`
      : e.reason === 'failure'
        ? `after ${e.count} failed calls`
        : e.reason === 'low-confidence'
          ? `for one call: the answer's confidence ${e.confidence ?? '?'} was under the threshold`
          : 'because its policy is frontier-only';
  const spent = e.inputTokens + e.outputTokens > 0 ? ` (retried call: ${e.inputTokens} in / ${e.outputTokens} out, $${e.costUsd}, ${e.durationMs} ms)` : '';
  return `escalated ${e.role} at ${e.level} from local model "${e.from}" to frontier model "${e.to}" ${why}${spent}`;
}

/**
 * The escalation as a run event, so it shows in the run's history with the model, reason,
 * latency, and (in the message) the tokens and cost of the call it moved. Its token and
 * cost fields stay zero: that call has its own usage event, and run totals sum them all.
 */
export function escalationToRunEvent(e: EscalationEvent, ctx: Omit<RunEventContext, 'role' | 'purpose'>): RunEvent {
  return {
    runId: ctx.runId,
    seq: ctx.seq,
    at: ctx.at,
    phase: ctx.phase ?? e.phase,
    kind: 'model',
    message: describeEscalation(e),
    role: e.role,
    model: e.model,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
    durationMs: e.durationMs,
  };
}
