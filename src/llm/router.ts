import type { z } from 'zod';
import type { Logger } from '../core/log';
import type { EffortLevel, RunEvent } from '../core/model';
import { routeFor } from './config';
import { isCancellation, LlmConfigError, LlmError, StructuredOutputError } from './errors';
import type { PriceTable } from './prices';
import type { ModelSlot, ResolvedModels } from './resolve';
import { generateObject, type ObjectRequest, type ObjectResult } from './structured';
import type { ChatRequest, ChatResponse, LanguageModel, ModelRole } from './types';
import { metered, type RunEventContext, type UsageRecord } from './usage';

/** A local model handed a role over to a frontier one (seed 001: logged escalation). */
export interface EscalationEvent {
  readonly role: ModelRole;
  readonly level: EffortLevel;
  readonly from: string;
  readonly to: string;
  readonly reason: 'invalid-output' | 'failure';
  /** How many invalid outputs or failures it took. */
  readonly count: number;
}

/** A usage record with the role and level it was spent on. */
export interface RoutedUsage extends UsageRecord {
  readonly role: ModelRole;
  readonly level: EffortLevel;
}

export interface RouterOptions {
  readonly logger?: Logger;
  readonly prices?: PriceTable;
  readonly onUsage?: (usage: RoutedUsage) => void;
  readonly onEscalation?: (event: EscalationEvent) => void;
}

interface SlotState {
  invalidOutputs: number;
  failures: number;
  escalatedTo?: LanguageModel;
}

/**
 * Picks the model for a role at an effort level, meters every call, and escalates a
 * role from a local model to a frontier one after repeated invalid output or failure.
 * Escalation holds for the router's life (one run) and is logged and reported.
 */
export class ModelRouter {
  private readonly states = new Map<string, SlotState>();
  readonly escalations: EscalationEvent[] = [];

  constructor(
    readonly resolved: ResolvedModels,
    private readonly options: RouterOptions = {},
  ) {}

  /** The model that serves a role at a level now, escalation included. */
  route(role: ModelRole, level: EffortLevel): LanguageModel {
    return this.state(role, level).escalatedTo ?? this.routed(role, level);
  }

  async chat(role: ModelRole, level: EffortLevel, request: ChatRequest): Promise<{ response: ChatResponse; usage: UsageRecord; model: LanguageModel }> {
    return this.withEscalation(role, level, async (model) => {
      const { result, usage } = await metered(model, () => model.chat(request), this.options.prices);
      this.report(usage, role, level);
      return { response: result, usage, model };
    }, () => 0);
  }

  async generateObject<S extends z.ZodType>(role: ModelRole, level: EffortLevel, request: ObjectRequest<S>): Promise<ObjectResult<z.output<S>> & { model: LanguageModel }> {
    return this.withEscalation(
      role,
      level,
      async (model) => ({ ...(await generateObject(model, request, { prices: this.options.prices, onUsage: (u) => this.report(u, role, level) })), model }),
      (result) => result.invalidOutputs,
    );
  }

  private async withEscalation<T>(role: ModelRole, level: EffortLevel, call: (model: LanguageModel) => Promise<T>, invalidOf: (result: T) => number): Promise<T> {
    const model = this.route(role, level);
    const state = this.state(role, level);
    try {
      const result = await call(model);
      const invalid = invalidOf(result);
      if (invalid > 0) {
        state.invalidOutputs += invalid;
        this.maybeEscalate(role, level, model, state);
      }
      return result;
    } catch (error) {
      if (isCancellation(error) || !(error instanceof LlmError) || error instanceof LlmConfigError) throw error;
      if (error instanceof StructuredOutputError) state.invalidOutputs += error.attempts;
      else state.failures += 1;
      const target = this.maybeEscalate(role, level, model, state);
      if (!target) throw error;
      this.options.logger?.info(`retrying ${role} at ${level} on ${target.displayName} after ${error.code} on ${model.displayName}`);
      return call(target);
    }
  }

  /** Escalates when a threshold is reached; returns the new model when this call should move to it. */
  private maybeEscalate(role: ModelRole, level: EffortLevel, model: LanguageModel, state: SlotState): LanguageModel | undefined {
    const rules = this.resolved.config.routing.escalation;
    if (!rules.enabled || state.escalatedTo || model.modelClass !== 'local') return undefined;
    const byInvalid = state.invalidOutputs >= rules.afterInvalidOutputs;
    const byFailure = state.failures >= rules.afterFailures;
    if (!byInvalid && !byFailure) return undefined;
    const target = this.escalationTarget();
    if (!target) {
      this.options.logger?.warn(`${role} at ${level}: ${model.displayName} keeps failing and no frontier model is available to escalate to`);
      return undefined;
    }
    state.escalatedTo = target;
    const event: EscalationEvent = {
      role,
      level,
      from: model.id,
      to: target.id,
      reason: byInvalid ? 'invalid-output' : 'failure',
      count: byInvalid ? state.invalidOutputs : state.failures,
    };
    this.escalations.push(event);
    this.options.logger?.info(describeEscalation(event));
    this.options.onEscalation?.(event);
    return target;
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
    return slot.model;
  }

  private state(role: ModelRole, level: EffortLevel): SlotState {
    const key = `${role}/${level}`;
    let state = this.states.get(key);
    if (!state) this.states.set(key, (state = { invalidOutputs: 0, failures: 0 }));
    return state;
  }

  private report(usage: UsageRecord, role: ModelRole, level: EffortLevel): void {
    this.options.onUsage?.({ ...usage, role, level });
  }
}

export function describeEscalation(e: EscalationEvent): string {
  const why = e.reason === 'invalid-output' ? `${e.count} invalid outputs` : `${e.count} failed calls`;
  return `escalated ${e.role} at ${e.level} from local model "${e.from}" to frontier model "${e.to}" after ${why}`;
}

/** The escalation as a run event, so it shows in the run's history. */
export function escalationToRunEvent(e: EscalationEvent, ctx: Omit<RunEventContext, 'role' | 'purpose'>): RunEvent {
  return {
    runId: ctx.runId,
    seq: ctx.seq,
    at: ctx.at,
    phase: ctx.phase,
    kind: 'model',
    message: describeEscalation(e),
    role: e.role,
    model: e.to,
    inputTokens: 0,
    outputTokens: 0,
    costUsd: 0,
  };
}
