import { z } from 'zod';
import { isCancellation } from '../model/errors';
import type { Logger } from '../model/log';
import type { EffortLevel } from '../model';
import { daysBetween, extendCatalogue, findModel, shippedCatalogue, shutdownSoon, todayIso, type Catalogue, type ModelLesson } from './catalogue';
import { adviceFor, catalogueStatusOf, configuredStatusOf, errorCode, unavailableFailure, type CatalogueStatus, type CheckFailure } from './check-model-advice';
import { routeFor, type ProviderConfig } from './config';
import { callCancelled, LlmTimeoutError, LlmTruncatedError } from './errors';
import { parseToolArguments } from './json-schema';
import type { PriceTable } from './prices';
import type { ResolvedModels } from './resolve';
import { ModelRouter, type RoutedUsage, type TierPreference } from './router';
import { MODEL_ROLES, type ChatMessage, type LanguageModel, type ModelRole, type ToolDefinition } from './types';

export type { CatalogueStatus, CheckFailure } from './check-model-advice';

/**
 * Check Model: one tiny call of each shape the product makes (a structured answer, a tool
 * call) on every distinct model that serves a role at an effort level, reported per role:
 * what works, what the model's server refused and was adapted to, and what to change.
 * This is what a person runs right after setting a key. Pure: the command line and the
 * editor resolve the models the way a run does and format the report themselves.
 */

export const CHECK_SHAPES = ['structured-output', 'tool-call'] as const;
export type CheckShape = (typeof CHECK_SHAPES)[number];

/** Enough for a one-line answer, with room for a reasoning model's thinking at a low effort. */
export const CHECK_MAX_OUTPUT_TOKENS = 1024;
/** A tool call cut off at the small cap is asked again once at a cap a role really uses (a reasoning model spends tokens thinking). */
export const CHECK_RETRY_MAX_OUTPUT_TOKENS = 4096;
export const CHECK_TIMEOUT_MS = 60_000;

export interface ShapeCheck {
  readonly shape: CheckShape;
  /** `adapted`: it works after the server refused something, which the model's profile now avoids. */
  readonly outcome: 'ok' | 'adapted' | 'failed';
  /** What the server refused during this call (lessons the model's profile learned). */
  readonly learned: readonly ModelLesson[];
  readonly failure?: CheckFailure;
  /** Things worth knowing that are not failures (e.g. it needed a larger output cap). */
  readonly notes: readonly string[];
  readonly durationMs: number;
}

export interface RoleCheck {
  readonly role: ModelRole;
  /** The configured model id that serves the role (the route's, when it could not be used). */
  readonly modelId: string;
  /** How to show the model to a person. */
  readonly model: string;
  readonly provider: string;
  readonly catalogue: CatalogueStatus;
  /** One per shape; empty when the model could not be used at all (see `unavailable`). */
  readonly shapes: readonly ShapeCheck[];
  readonly unavailable?: CheckFailure;
  /** A scripted demo's scope (its script's `demo:`): it answers that request only and is not called. */
  readonly demo?: string;
  /** What the server had refused before this check (lessons from earlier calls). */
  readonly knownBefore: readonly ModelLesson[];
  /** Concrete changes to make, failures first; may be non-empty when the role works (a shutdown ahead, cost unknown). */
  readonly changes: readonly string[];
  /** Every shape ok or adapted. */
  readonly works: boolean;
}

export interface CheckSpending {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly costUsd: number;
  /** False when some call had no known price (its cost is counted as 0). */
  readonly priced: boolean;
}

export interface CheckReport {
  readonly level: EffortLevel;
  /** Every role works (each shape ok or adapted). */
  readonly works: boolean;
  /** Manager, specialist, verifier, in that order; roles that share a model share its results. */
  readonly roles: readonly RoleCheck[];
  readonly spent: CheckSpending;
  /** The catalogue's facts and how old they are (it is re-read from the providers' pages monthly). */
  readonly catalogue: { readonly readOn: string; readonly ageDays: number };
  /** Configured models that shut down within 30 days (SHUTDOWN_WARNING_DAYS), each with its replacement. */
  readonly shuttingDown: readonly { readonly roles: readonly ModelRole[]; readonly name: string; readonly shutdown: string; readonly inDays: number; readonly replacement?: string }[];
}

export interface CheckOptions {
  readonly level: EffortLevel;
  /** The tier each role starts on at a level (capabilities.yaml `models:`), as a run's engine sets it. */
  readonly tierFor?: TierPreference;
  /** The sampling temperature a role's calls carry (its role file's policy), so a refusal of it shows here first. */
  readonly temperatureOf?: (role: ModelRole) => number | undefined;
  /** Cancels the check: it then rejects with a CancelledError, never a failed report. */
  readonly signal?: AbortSignal;
  /** Per call, the provider's own retries included. */
  readonly timeoutMs?: number;
  readonly maxOutputTokens?: number;
  readonly prices?: PriceTable;
  readonly logger?: Logger;
  /** Says what is being checked now, for a progress notification. */
  readonly onProgress?: (message: string) => void;
  /** Today, for shutdown dates (tests pin it). */
  readonly now?: () => Date;
}

/** The structured answer asked for: tiny, strict-clean (every property required, object closed). */
export const CheckAnswer = z.object({ ok: z.boolean(), says: z.string() }).strict();

/** The tool offered: the specialist's tools are function tools with zod-defined arguments like this one. */
export const ECHO_TOOL: ToolDefinition = {
  name: 'echo',
  description: 'Repeats a short text back. Call it to show that you can call tools.',
  parameters: z.object({ text: z.string().min(1) }).strict(),
};

const STRUCTURED_MESSAGES: readonly ChatMessage[] = [
  { role: 'system', content: 'You are being checked: can you answer with JSON that matches a schema? Answer with JSON only.' },
  { role: 'user', content: 'Answer with "ok" set to true and "says" set to "ready".' },
];

const TOOL_MESSAGES: readonly ChatMessage[] = [
  { role: 'system', content: 'You are being checked: can you call a tool? Call the echo tool once; do not answer in prose.' },
  { role: 'user', content: 'Call the echo tool with the text "ready".' },
];

/**
 * Checks the models serving every role at `options.level`. Calls go through a model router
 * built as a run's is (same routes, tiers and policies) but without escalation, so a
 * failing model is reported rather than quietly replaced, and without a budget (the calls
 * are tiny). Roles that share a model share one call of each shape.
 */
export async function checkModels(resolved: ResolvedModels, options: CheckOptions): Promise<CheckReport> {
  const { level } = options;
  const spent: RoutedUsage[] = [];
  const router = new ModelRouter(withoutEscalation(resolved), {
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.prices ? { prices: options.prices } : {}),
    onUsage: (u) => spent.push(u),
  });
  router.preferTiers(options.tierFor);
  const catalogue = resolved.catalogue ?? extendCatalogue(shippedCatalogue(), resolved.config.catalogue);
  const today = todayIso(options.now?.());

  const routes = MODEL_ROLES.map((role) => ({ role, ...routeOf(router, role, level) }));
  const checked = new Map<LanguageModel, { shapes: ShapeCheck[]; knownBefore: readonly ModelLesson[] }>();
  for (const route of routes) {
    if (!route.model || checked.has(route.model)) continue;
    const model = route.model;
    const served = routes.filter((r) => r.model === model).map((r) => r.role);
    const knownBefore = [...(model.profile?.learned ?? [])];
    const shapes: ShapeCheck[] = [];
    // A scripted demo answers its one request: a check call would only read the wrong step of its script.
    if (model.demo !== undefined) {
      checked.set(model, { shapes, knownBefore });
      continue;
    }
    for (const shape of CHECK_SHAPES) {
      throwIfCancelled(options.signal, model);
      options.onProgress?.(`${model.displayName}: ${shape === 'structured-output' ? 'structured output' : 'tool call'}`);
      shapes.push(await checkShape(router, model, served, shape, { ...options, provider: resolved.config.providers.find((p) => p.id === model.providerId) }));
    }
    checked.set(model, { shapes, knownBefore });
  }

  const roles = routes.map((route): RoleCheck => {
    if (!route.model) return unavailableRole(route.role, route.error, resolved, catalogue, level, today);
    const model = route.model;
    const { shapes, knownBefore } = checked.get(model)!;
    const catalogueStatus = catalogueStatusOf(model, today);
    const usage = spent.filter((u) => u.modelId === model.id);
    const changes = [
      ...shapes.flatMap((s) => (s.failure ? [s.failure.change] : [])),
      ...adviceFor.catalogue(catalogueStatus),
      ...(usage.some((u) => !u.priced) && model.kind !== 'vscode-lm' ? [adviceFor.costUnknown(model)] : []),
    ];
    return {
      role: route.role,
      modelId: model.id,
      model: model.displayName,
      provider: model.providerId,
      catalogue: catalogueStatus,
      shapes,
      ...(model.demo !== undefined ? { demo: model.demo } : {}),
      knownBefore,
      changes: [...new Set(changes)],
      works: shapes.every((s) => s.outcome !== 'failed'),
    };
  });
  const shuttingDown: CheckReport['shuttingDown'][number][] = [];
  for (const r of roles) {
    const soon = shutdownSoon(r.catalogue.status === 'shutdown-ahead' ? findModel(catalogue, r.catalogue.name) : undefined, today);
    if (!soon) continue;
    const same = shuttingDown.find((x) => x.name === soon.name);
    if (same) (same.roles as ModelRole[]).push(r.role);
    else shuttingDown.push({ roles: [r.role], ...soon });
  }
  return {
    level,
    works: roles.every((r) => r.works),
    roles,
    catalogue: { readOn: catalogue.readOn, ageDays: daysBetween(catalogue.readOn, today) },
    shuttingDown,
    spent: {
      inputTokens: spent.reduce((n, u) => n + u.inputTokens, 0),
      outputTokens: spent.reduce((n, u) => n + u.outputTokens, 0),
      costUsd: Math.round(spent.reduce((n, u) => n + u.costUsd, 0) * 1e9) / 1e9,
      priced: spent.every((u) => u.priced),
    },
  };
}

function withoutEscalation(resolved: ResolvedModels): ResolvedModels {
  const routing = resolved.config.routing;
  return { ...resolved, config: { ...resolved.config, routing: { ...routing, escalation: { ...routing.escalation, enabled: false } } } };
}

function routeOf(router: ModelRouter, role: ModelRole, level: EffortLevel): { model?: LanguageModel; error?: unknown } {
  try {
    return { model: router.route(role, level) };
  } catch (error) {
    return { error };
  }
}

/** A role whose model cannot be used (no key, shut down, editor-only): why, and what to change. */
function unavailableRole(role: ModelRole, error: unknown, resolved: ResolvedModels, catalogue: Catalogue, level: EffortLevel, today: string): RoleCheck {
  const id = routeFor(resolved.config, role, level);
  const configured = resolved.config.models.find((m) => m.id === id);
  const provider = configured && resolved.config.providers.find((p) => p.id === configured.provider);
  const entry = configured && provider && (provider.kind === 'openai' || provider.kind === 'anthropic') ? findModel(catalogue, configured.model) : undefined;
  const catalogueStatus = configuredStatusOf(entry, provider?.kind, today);
  const failure = unavailableFailure(error, { slot: resolved.slots.get(id), provider, catalogue: catalogueStatus });
  return {
    role,
    modelId: id,
    model: configured?.model ?? id,
    provider: provider?.id ?? '',
    catalogue: catalogueStatus,
    shapes: [],
    unavailable: failure,
    knownBefore: [],
    changes: [...new Set([failure.change, ...(catalogueStatus.status === 'retired' ? [] : adviceFor.catalogue(catalogueStatus))])],
    works: false,
  };
}

/** One shape on one model: the call, at most one retry at a larger cap, and what its server taught the profile. */
async function checkShape(router: ModelRouter, model: LanguageModel, roles: readonly ModelRole[], shape: CheckShape, options: CheckOptions & { provider?: ProviderConfig }): Promise<ShapeCheck> {
  const before = model.profile?.learned.length ?? 0;
  const learned = () => (model.profile?.learned ?? []).slice(before);
  const started = performance.now();
  const notes: string[] = [];
  const context = () => ({ model, shape, learned: learned(), ...(options.provider ? { provider: options.provider } : {}) });
  const done = (outcome: ShapeCheck['outcome'], failure?: CheckFailure): ShapeCheck => ({
    shape,
    outcome,
    learned: learned(),
    ...(failure ? { failure } : {}),
    notes,
    durationMs: Math.round(performance.now() - started),
  });
  let cap = options.maxOutputTokens ?? CHECK_MAX_OUTPUT_TOKENS;
  for (;;) {
    try {
      const problem = await withDeadline(model, options, (signal) => call(router, roles, shape, cap, signal, options));
      if (problem) return done('failed', adviceFor.failure(problem, context()));
      return done(learned().length > 0 ? 'adapted' : 'ok');
    } catch (error) {
      if (isCancellation(error)) throw error;
      // A structured call raises its own cap once (generateObject, as in a run); a tool call's cut-off is retried here.
      if (shape === 'tool-call' && errorCode(error) === 'truncated' && cap < CHECK_RETRY_MAX_OUTPUT_TOKENS) {
        notes.push(`it needed more than ${cap} output tokens for a one-line answer, so it was asked again with ${CHECK_RETRY_MAX_OUTPUT_TOKENS}`);
        cap = CHECK_RETRY_MAX_OUTPUT_TOKENS;
        continue;
      }
      return done('failed', adviceFor.failure(error, context()));
    }
  }
}

/** A reply that is not a working call of the shape, as a typed problem; undefined when it works. */
type ShapeProblem = { readonly code: 'no-tool-call' | 'tool-arguments'; readonly message: string };

async function call(router: ModelRouter, roles: readonly ModelRole[], shape: CheckShape, cap: number, signal: AbortSignal, options: CheckOptions): Promise<ShapeProblem | undefined> {
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  const level = options.level;
  if (shape === 'structured-output') {
    // The manager and the verifier are the roles that ask for structured answers.
    const role = roles.find((r) => r !== 'specialist') ?? roles[0]!;
    const temperature = options.temperatureOf?.(role);
    await router.generateObject(role, level, {
      name: 'check_model',
      description: 'A one-line answer that shows structured output works.',
      schema: CheckAnswer,
      messages: STRUCTURED_MESSAGES,
      maxOutputTokens: cap,
      timeoutMs,
      signal,
      ...(temperature !== undefined ? { temperature } : {}),
    });
    return undefined;
  }
  // The specialist is the role that calls tools, with the choice left to the model ('auto').
  const role = roles.includes('specialist') ? 'specialist' : roles[0]!;
  const temperature = options.temperatureOf?.(role);
  const { response, model } = await router.chat(role, level, {
    messages: TOOL_MESSAGES,
    tools: [ECHO_TOOL],
    toolChoice: 'auto',
    maxOutputTokens: cap,
    timeoutMs,
    signal,
    ...(temperature !== undefined ? { temperature } : {}),
  });
  const echo = response.toolCalls.find((c) => c.name === ECHO_TOOL.name);
  if (!echo) {
    if (response.stopReason === 'max-tokens') throw new LlmTruncatedError(model.displayName, cap, 'max_tokens');
    const other = response.toolCalls[0];
    return { code: 'no-tool-call', message: other ? `it called "${other.name}", which was not offered, instead of echo` : 'it answered in text without calling the echo tool' };
  }
  const parsed = parseToolArguments(ECHO_TOOL, echo);
  return parsed.ok ? undefined : { code: 'tool-arguments', message: parsed.error.message };
}

/**
 * Runs a call with the check's own deadline over it (the provider's retries included) and
 * the caller's cancellation: the deadline is a timeout, the caller's abort a cancellation.
 */
async function withDeadline<T>(model: LanguageModel, options: CheckOptions, body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const timeoutMs = options.timeoutMs ?? CHECK_TIMEOUT_MS;
  const controller = new AbortController();
  const outer = options.signal;
  const cancel = () => controller.abort();
  outer?.addEventListener('abort', cancel, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    throwIfCancelled(outer, model);
    return await body(controller.signal);
  } catch (error) {
    if (outer?.aborted) throw callCancelled(model.displayName);
    if (timedOut && isCancellation(error)) throw new LlmTimeoutError(model.displayName, timeoutMs);
    throw error;
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', cancel);
  }
}

function throwIfCancelled(signal: AbortSignal | undefined, model: LanguageModel): void {
  if (signal?.aborted) throw callCancelled(model.displayName);
}
