import { z } from 'zod';
import { parseYamlDataFile } from '../model/data-file';
import shippedModels from './data/models.yaml';
import { ModelRetiredError } from './errors';
import type { LessonParam, ModelLesson } from './lesson';
import type { ProviderKind } from './provider-kinds';

/**
 * The model catalogue: what each model accepts and costs, as data (`data/models.yaml`),
 * read from the providers' own model pages on a stated date. A model is found by its exact
 * name or one of its listed snapshot names, never by a loose prefix: `claude-opus-4-6` is
 * not `claude-opus-4`. A workspace models file may add or replace entries (`catalogue:`).
 */

/** Which wire API a model is called through. */
export const MODEL_APIS = ['responses', 'chat-completions', 'anthropic-messages'] as const;
export type ModelApi = (typeof MODEL_APIS)[number];

/**
 * How a model is asked for structured output:
 * - `json-schema-strict`: OpenAI `text.format` / `response_format` JSON schema with `strict: true`;
 * - `anthropic-output-format`: Anthropic `output_config.format` with a JSON schema;
 * - `forced-tool`: a tool whose input is the schema, forced with `tool_choice`;
 * - `prompt-only`: the schema in the prompt, the reply validated (and repaired once).
 */
export const STRUCTURED_MODES = ['json-schema-strict', 'anthropic-output-format', 'forced-tool', 'prompt-only'] as const;
export type StructuredMode = (typeof STRUCTURED_MODES)[number];

export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date as YYYY-MM-DD');

export const CataloguePrice = z
  .object({
    /** US dollars per million tokens. */
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    /** Cached input (prompt cache read), when the provider prices it. */
    cachedInput: z.number().nonnegative().optional(),
    /** A prompt-cache write with the default time to live (Anthropic: 5 minutes, 1.25 x input), when priced apart. */
    cacheWrite: z.number().nonnegative().optional(),
    /** A prompt-cache write with the 1-hour time to live (Anthropic: 2 x input). */
    cacheWrite1h: z.number().nonnegative().optional(),
    /** The day the price was read off the provider's page. */
    readOn: IsoDate,
  })
  .strict();
export type CataloguePrice = z.infer<typeof CataloguePrice>;

export const CatalogueEntry = z
  .object({
    /** The exact model name sent to the provider. */
    name: z.string().min(1),
    /** Other exact names of the same model (dated snapshots, aliases). */
    aliases: z.array(z.string().min(1)).default([]),
    /** An explicit family, for display and for the contract tests (e.g. `gpt-5.6`, `claude-opus`). */
    family: z.string().min(1),
    provider: z.enum(['openai', 'anthropic']),
    api: z.enum(MODEL_APIS),
    /** Whether `temperature` / `top_p` are accepted (reasoning models refuse them). */
    sampling: z.boolean(),
    structuredOutput: z.enum(STRUCTURED_MODES),
    /** Whether function tools are accepted on this model's API. */
    tools: z.boolean().default(true),
    /** Whether a forced tool choice (a named tool, or `required` / `any`) is accepted. */
    forcedToolChoice: z.boolean(),
    /** Whether the conversation may end with an assistant turn for the model to continue (prefill). */
    prefill: z.boolean().default(false),
    /** The reasoning effort sent (`reasoning.effort` on Responses, `output_config.effort` on Anthropic); absent: none sent. */
    reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
    maxOutputTokens: z.number().int().positive(),
    contextWindow: z.number().int().positive(),
    prices: CataloguePrice,
    /** The provider's announced shutdown date; from that day the model is refused before any call. */
    shutdown: IsoDate.optional(),
    /** The provider's named replacement. */
    replacement: z.string().min(1).optional(),
    /** Where the facts were read (the provider's model page). */
    source: z.string().min(1).optional(),
  })
  .strict();
export type CatalogueEntry = z.infer<typeof CatalogueEntry>;
export type CatalogueEntryInput = z.input<typeof CatalogueEntry>;

export const Catalogue = z
  .object({
    version: z.literal(1),
    /** The day the catalogue as a whole was last checked against the providers' pages. */
    readOn: IsoDate,
    /** The defaults used when only a key is set: current models that no shutdown notice names. */
    defaults: z.object({ openai: z.string().min(1), anthropic: z.string().min(1) }).strict(),
    models: z.array(CatalogueEntry).min(1),
  })
  .strict()
  .superRefine((c, ctx) => {
    const seen = new Set<string>();
    c.models.forEach((m, i) => {
      for (const name of [m.name, ...m.aliases]) {
        const key = name.toLowerCase();
        if (seen.has(key)) ctx.addIssue({ code: 'custom', path: ['models', i, 'name'], message: `"${name}" is listed twice` });
        seen.add(key);
      }
    });
    for (const kind of ['openai', 'anthropic'] as const) {
      const entry = c.models.find((m) => m.name === c.defaults[kind]);
      if (!entry) ctx.addIssue({ code: 'custom', path: ['defaults', kind], message: `default "${c.defaults[kind]}" is not in the catalogue` });
      else if (entry.shutdown) ctx.addIssue({ code: 'custom', path: ['defaults', kind], message: `default "${entry.name}" has a shutdown date` });
    }
  });
export type Catalogue = z.infer<typeof Catalogue>;

export const SHIPPED_CATALOGUE_FILE = 'models.yaml (shipped)';

let shipped: Catalogue | undefined;

/** The catalogue shipped with the extension. It is tested, so a problem here is a bug. */
export function shippedCatalogue(): Catalogue {
  if (!shipped) {
    const parsed = parseYamlDataFile(SHIPPED_CATALOGUE_FILE, shippedModels, Catalogue);
    if (!parsed.ok) throw new Error(`shipped model catalogue is invalid: ${parsed.problems.map((p) => `${p.field ?? ''} ${p.message}`).join('; ')}`);
    shipped = parsed.value;
  }
  return shipped;
}

/** The shipped catalogue with a workspace's entries on top (an entry with a listed name replaces it). */
export function extendCatalogue(base: Catalogue, extra: readonly CatalogueEntry[] | undefined): Catalogue {
  if (!extra || extra.length === 0) return base;
  const names = new Set(extra.flatMap((e) => [e.name, ...e.aliases].map((n) => n.toLowerCase())));
  const kept = base.models.filter((m) => ![m.name, ...m.aliases].some((n) => names.has(n.toLowerCase())));
  return { ...base, models: [...extra, ...kept] };
}

/** The entry of a model name: its exact name or one of its aliases, case-insensitive. Never a prefix. */
export function findModel(catalogue: Catalogue, name: string): CatalogueEntry | undefined {
  const key = name.trim().toLowerCase();
  return catalogue.models.find((m) => m.name.toLowerCase() === key || m.aliases.some((a) => a.toLowerCase() === key));
}

/**
 * What the provider code may send a model. For a catalogued model these are its entry's
 * facts; for an unknown one, conservative guesses that the adapter corrects from the
 * server's own refusals (see `ModelProfile.learn`).
 */
export interface ModelCapabilities {
  readonly api: ModelApi;
  readonly sampling: boolean;
  /** `top_p` separately from `temperature`; both follow `sampling` unless learned apart. */
  readonly structuredOutput: StructuredMode;
  readonly strictSchemas: boolean;
  readonly tools: boolean;
  readonly forcedToolChoice: boolean;
  readonly prefill: boolean;
  readonly reasoningEffort?: ReasoningEffort;
  /** Which output cap parameter a Chat Completions server takes. */
  readonly maxTokensParam: 'max_tokens' | 'max_completion_tokens' | 'max_output_tokens';
  readonly maxOutputTokens?: number;
  readonly contextWindow?: number;
  /** True when these come from the catalogue (or the workspace's own entry), false when guessed. */
  readonly catalogued: boolean;
}

// Lessons live in lesson.ts (the store needs them without the catalogue); re-exported for the model code.
export { LESSON_PARAMS, ModelLesson, type LessonParam } from './lesson';

/** The capabilities of a model: its catalogue entry, else conservative guesses for its provider kind. */
export function capabilitiesOf(entry: CatalogueEntry | undefined, kind: ProviderKind, options: { local?: boolean } = {}): ModelCapabilities {
  if (entry) {
    return {
      api: entry.api,
      sampling: entry.sampling,
      structuredOutput: entry.structuredOutput,
      strictSchemas: entry.structuredOutput === 'json-schema-strict',
      tools: entry.tools,
      forcedToolChoice: entry.forcedToolChoice,
      prefill: entry.prefill,
      ...(entry.reasoningEffort ? { reasoningEffort: entry.reasoningEffort } : {}),
      maxTokensParam: entry.api === 'responses' ? 'max_output_tokens' : entry.api === 'chat-completions' ? 'max_completion_tokens' : 'max_tokens',
      maxOutputTokens: entry.maxOutputTokens,
      contextWindow: entry.contextWindow,
      catalogued: true,
    };
  }
  if (kind === 'anthropic') {
    // An unknown Claude model: no forced tool (the newest refuse it), no sampling, tool-based output unforced.
    return { api: 'anthropic-messages', sampling: false, structuredOutput: 'prompt-only', strictSchemas: false, tools: true, forcedToolChoice: false, prefill: false, maxTokensParam: 'max_tokens', catalogued: false };
  }
  // An unknown OpenAI-compatible model: Chat Completions, the widely known `max_tokens` on local
  // servers, a JSON schema without `strict`, no sampling parameters (they are only hints).
  return {
    api: 'chat-completions',
    sampling: false,
    structuredOutput: 'json-schema-strict',
    strictSchemas: false,
    tools: true,
    forcedToolChoice: true,
    prefill: false,
    maxTokensParam: options.local ? 'max_tokens' : 'max_completion_tokens',
    catalogued: false,
  };
}

/** Capabilities with the lessons learned from a server's refusals applied. */
export function applyLessons(caps: ModelCapabilities, lessons: readonly Pick<ModelLesson, 'param'>[]): ModelCapabilities {
  let out: ModelCapabilities = caps;
  for (const { param } of lessons) {
    switch (param) {
      case 'temperature':
      case 'top_p':
        out = { ...out, sampling: false };
        break;
      case 'tool_choice':
        out = { ...out, forcedToolChoice: false, ...(out.structuredOutput === 'forced-tool' ? { structuredOutput: 'prompt-only' as const } : {}) };
        break;
      case 'tools':
        out = { ...out, tools: false, forcedToolChoice: false, ...(out.structuredOutput === 'forced-tool' ? { structuredOutput: 'prompt-only' as const } : {}) };
        break;
      case 'strict':
        out = { ...out, strictSchemas: false };
        break;
      case 'response_format':
        out = { ...out, structuredOutput: 'prompt-only', strictSchemas: false };
        break;
      case 'max_tokens':
        out = { ...out, maxTokensParam: out.api === 'chat-completions' ? 'max_completion_tokens' : out.maxTokensParam };
        break;
      case 'max_completion_tokens':
        out = { ...out, maxTokensParam: out.api === 'chat-completions' ? 'max_tokens' : out.maxTokensParam };
        break;
      case 'reasoning_effort': {
        const { reasoningEffort: _dropped, ...rest } = out;
        out = rest;
        break;
      }
    }
  }
  return out;
}

/**
 * One model's capabilities as the provider code reads them on every call: the catalogue's
 * facts plus what its server taught us. `learn` records a refusal once; listeners persist it
 * (the store), log it and make it a run event.
 */
export class ModelProfile {
  private lessons: ModelLesson[] = [];
  private current: ModelCapabilities;
  private readonly listeners = new Set<(lesson: ModelLesson) => void>();

  constructor(
    readonly model: string,
    readonly providerId: string,
    readonly entry: CatalogueEntry | undefined,
    private readonly base: ModelCapabilities,
    learned: readonly ModelLesson[] = [],
  ) {
    this.current = base;
    for (const lesson of learned) this.record(lesson);
  }

  get capabilities(): ModelCapabilities {
    return this.current;
  }

  get learned(): readonly ModelLesson[] {
    return this.lessons;
  }

  /** Whether this lesson is already known (a second refusal of the same thing is a real failure). */
  knows(param: LessonParam): boolean {
    return this.lessons.some((l) => l.param === param);
  }

  /** Records a refusal and tells the listeners; false when it was already known. */
  learn(param: LessonParam, message: string, at: string = new Date().toISOString()): boolean {
    if (this.knows(param)) return false;
    const lesson: ModelLesson = { model: this.model, providerId: this.providerId, param, message, at };
    this.record(lesson);
    for (const listener of this.listeners) listener(lesson);
    return true;
  }

  onLesson(listener: (lesson: ModelLesson) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private record(lesson: ModelLesson): void {
    if (this.knows(lesson.param)) return;
    this.lessons.push(lesson);
    this.current = applyLessons(this.base, this.lessons);
  }
}

/** The profile of a model as a provider of `kind` serves it: catalogue facts, else guesses, plus lessons. */
export function profileFor(
  catalogue: Catalogue,
  kind: ProviderKind,
  model: string,
  providerId: string,
  options: { local?: boolean; lessons?: readonly ModelLesson[] } = {},
): ModelProfile {
  // A catalogued OpenAI model served by another kind of server (a local one) is not that model's API.
  const found = findModel(catalogue, model);
  const entry = found && found.provider === kind ? found : undefined;
  const lessons = (options.lessons ?? []).filter((l) => l.model === model && l.providerId === providerId);
  return new ModelProfile(model, providerId, entry, capabilitiesOf(entry, kind, options), lessons);
}

/**
 * Refuses a model past its shutdown date before any call, naming the replacement. `today`
 * is a YYYY-MM-DD date (the caller's clock, so tests can pin it).
 */
export function assertNotRetired(entry: CatalogueEntry | undefined, name: string, today: string): void {
  if (entry?.shutdown && entry.shutdown <= today) throw new ModelRetiredError(name, entry.shutdown, entry.replacement);
}

/** A shutdown date still ahead, for a warning at the start of a run. */
export function shutdownNotice(entry: CatalogueEntry | undefined, today: string): string | undefined {
  if (!entry?.shutdown || entry.shutdown <= today) return undefined;
  return `${entry.name} shuts down on ${entry.shutdown}${entry.replacement ? `; its replacement is ${entry.replacement}` : ''}`;
}

/** How many days ahead a shutdown is named wherever a model is chosen or checked. */
export const SHUTDOWN_WARNING_DAYS = 30;

/** Whole days from `from` to `to` (YYYY-MM-DD each); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** A model whose shutdown is within `days` of today (and not past): its date, how soon, and its replacement. */
export function shutdownSoon(entry: CatalogueEntry | undefined, today: string, days = SHUTDOWN_WARNING_DAYS): { name: string; shutdown: string; inDays: number; replacement?: string } | undefined {
  if (!entry?.shutdown) return undefined;
  const inDays = daysBetween(today, entry.shutdown);
  if (inDays <= 0 || inDays > days) return undefined;
  return { name: entry.name, shutdown: entry.shutdown, inDays, ...(entry.replacement ? { replacement: entry.replacement } : {}) };
}

/** One phrase for a person choosing a model: "shuts down on 2026-11-30 (in 4 days): switch to claude-sonnet-5-5". */
export function shutdownSoonText(soon: NonNullable<ReturnType<typeof shutdownSoon>>): string {
  return `shuts down on ${soon.shutdown} (in ${soon.inDays} day${soon.inDays === 1 ? '' : 's'}): switch to ${soon.replacement ?? 'a current model'}`;
}

export function todayIso(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}
