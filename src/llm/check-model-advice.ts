import type { CatalogueEntry, LessonParam, ModelLesson } from './catalogue';
import type { ProviderConfig } from './config';
import { redact } from './errors';
import type { ModelSlot } from './resolve';
import type { LanguageModel, ProviderKind } from './types';

/**
 * What Check Model says about a model's place in the catalogue and, for each way a call can
 * fail, the one concrete thing to change. Decided by error code, never by message text.
 */

export type CatalogueStatus =
  | { readonly status: 'catalogued'; readonly name: string; readonly family: string }
  | { readonly status: 'shutdown-ahead'; readonly name: string; readonly shutdown: string; readonly replacement?: string }
  | { readonly status: 'retired'; readonly name: string; readonly shutdown: string; readonly replacement?: string }
  /** Not in the catalogue: conservative guesses, corrected from its server's refusals. */
  | { readonly status: 'unknown' }
  /** VS Code provides it (vscode.lm): what it accepts is VS Code's business. */
  | { readonly status: 'provided-by-editor' }
  | { readonly status: 'scripted' };

export interface CheckFailure {
  /** The typed error's code (for a provider error, its failure: `auth`, `not-found`, …), or the check's own. */
  readonly code: string;
  readonly message: string;
  /** One concrete change that would make it work. */
  readonly change: string;
}

/** Where a key is read on the command line when the models file names no variable (as resolve.ts does). */
const KEY_ENV: Partial<Record<ProviderKind, string>> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

export function catalogueStatusOf(model: LanguageModel, today: string): CatalogueStatus {
  return configuredStatusOf(model.profile?.entry, model.kind, today);
}

/** The catalogue status of a model name as a provider of `kind` serves it. */
export function configuredStatusOf(entry: CatalogueEntry | undefined, kind: ProviderKind | undefined, today: string): CatalogueStatus {
  if (kind === 'vscode-lm') return { status: 'provided-by-editor' };
  if (kind === 'scripted') return { status: 'scripted' };
  if (!entry) return { status: 'unknown' };
  const shutdown = entry.shutdown ? { shutdown: entry.shutdown, ...(entry.replacement ? { replacement: entry.replacement } : {}) } : undefined;
  if (shutdown && shutdown.shutdown <= today) return { status: 'retired', name: entry.name, ...shutdown };
  if (shutdown) return { status: 'shutdown-ahead', name: entry.name, ...shutdown };
  return { status: 'catalogued', name: entry.name, family: entry.family };
}

/** The code of a typed error: a provider error's failure kind, else its `code`. */
export function errorCode(error: unknown): string {
  if (error && typeof error === 'object') {
    const { code, failure } = error as { code?: unknown; failure?: unknown };
    if (code === 'provider' && typeof failure === 'string') return failure;
    if (typeof code === 'string') return code;
  }
  return 'error';
}

function messageOf(error: unknown): string {
  return redact(error instanceof Error ? error.message : typeof error === 'object' && error && 'message' in error ? String(error.message) : String(error));
}

const PROTOCOL_FAILED = 'its server refuses tools and it did not follow the prompt-level tool protocol: pick another model for the specialist';

const switchModel = (to: string) => `switch to ${to}: with "Ideal State: Select Model", in the models file, or with --model on the command line`;

function keyAdvice(provider: { id: string; kind: ProviderKind; apiKeyEnv?: string }, refused: boolean): string {
  const env = provider.apiKeyEnv ?? KEY_ENV[provider.kind];
  return `${refused ? 'the key was refused: set a valid' : 'set the'} API key of provider "${provider.id}" ("Ideal State: Set API Key" in the editor${env ? `, ${env} on the command line` : ''})`;
}

export interface FailureContext {
  readonly model: LanguageModel;
  readonly shape: 'structured-output' | 'tool-call';
  /** What the server refused during the call. */
  readonly learned: readonly ModelLesson[];
  /** The configured provider, for the name of its key. */
  readonly provider?: ProviderConfig;
}

function failureChange(code: string, error: unknown, ctx: FailureContext): string {
  const { model } = ctx;
  const editor = model.kind === 'vscode-lm';
  // A server that refuses tools gets them through the prompt-level protocol; failing that, nothing is left to adapt.
  const toolsRefused = ctx.learned.some((l) => l.param === 'tools') || model.profile?.capabilities.tools === false;
  switch (code) {
    case 'auth':
      if (editor) return 'allow Ideal State to use this VS Code model when the editor asks, or pick another with "Ideal State: Select Model"';
      return keyAdvice({ id: model.providerId, kind: model.kind, ...(ctx.provider?.apiKeyEnv ? { apiKeyEnv: ctx.provider.apiKeyEnv } : {}) }, true);
    case 'not-found':
      if (editor) return 'VS Code does not offer this model now: pick another with "Ideal State: Select Model"';
      return `check the model name "${model.model}": provider "${model.providerId}" does not serve it`;
    case 'model-retired': {
      const replacement = (error as { replacement?: unknown }).replacement;
      return typeof replacement === 'string' ? switchModel(replacement) : `${switchModel('a current model')}; the provider shut this one down`;
    }
    case 'rate-limit':
      return 'the provider is limiting requests or the account has no credit left: check its usage and billing, then check again';
    case 'connection':
      return `check that the server of provider "${model.providerId}" is running and reachable${ctx.provider?.baseUrl ? ` at ${ctx.provider.baseUrl}` : ''}`;
    case 'timeout':
      return 'it did not answer in time: check the server (a local model may still be loading) and check again';
    case 'server':
    case 'bad-response':
    case 'other':
      return 'the provider failed on its side: check again later, or pick another model';
    case 'bad-request':
      if (ctx.shape === 'tool-call' && toolsRefused) return PROTOCOL_FAILED;
      return `its server refused the request even after adapting${paramOf(error)}: describe what the model accepts in a catalogue: entry of the models file, or pick another model`;
    case 'refusal':
      return 'it refused a harmless request: pick another model';
    case 'truncated':
      return 'it ran out of output tokens on a one-line answer: pick another model, or give it a lower reasoning effort in a catalogue: entry of the models file';
    case 'invalid-output':
      // The prompt-level tool protocol reads the reply as a JSON action: invalid output there is the protocol failing.
      if (ctx.shape === 'tool-call') return toolsRefused ? PROTOCOL_FAILED : 'its tool calls could not be read: pick a model that calls tools reliably for the specialist';
      return 'it gives no valid JSON for a small schema, even after a repair: pick a stronger model for the manager and the verifier';
    case 'no-tool-call':
    case 'tool-arguments':
      if (toolsRefused) return PROTOCOL_FAILED;
      return code === 'no-tool-call' ? 'it does not call a tool when asked: pick a model that calls tools for the specialist' : "its tool arguments do not match the tool's schema: pick a model that calls tools reliably for the specialist";
    case 'script':
      return `fix the script: ${messageOf(error)}`;
    default:
      return messageOf(error);
  }
}

function paramOf(error: unknown): string {
  const param = (error as { param?: unknown })?.param;
  return typeof param === 'string' && param ? ` (${param})` : '';
}

/** Why a role's configured model cannot be used at all, and what to change. */
export function unavailableFailure(error: unknown, ctx: { slot: ModelSlot | undefined; provider: ProviderConfig | undefined; catalogue: CatalogueStatus }): CheckFailure {
  const message = messageOf(error);
  const { provider, catalogue } = ctx;
  if (catalogue.status === 'retired') {
    return { code: 'model-retired', message, change: catalogue.replacement ? switchModel(catalogue.replacement) : `${switchModel('a current model')}; the provider shut this one down` };
  }
  // resolve.ts leaves a hosted provider's model unavailable for one other reason: no key.
  if (ctx.slot && !ctx.slot.ok && provider && (provider.kind === 'openai' || provider.kind === 'anthropic')) {
    return { code: 'no-key', message, change: keyAdvice(provider, false) };
  }
  if (ctx.slot && !ctx.slot.ok && provider?.kind === 'vscode-lm') {
    return { code: 'config', message, change: 'models VS Code provides work only inside the editor: route the roles to another model in the models file, or pass --model' };
  }
  return { code: errorCode(error), message, change: `change the models file's routing: ${message}` };
}

/** What a call's failure means for a person: its code, its message, and what to change. */
function failure(error: unknown, ctx: FailureContext): CheckFailure {
  const code = errorCode(error);
  return { code, message: messageOf(error), change: failureChange(code, error, ctx) };
}

/** A lesson as a person reads it: what was refused, and what is sent instead. */
export function lessonText(param: LessonParam): string {
  switch (param) {
    case 'temperature':
    case 'top_p':
    case 'reasoning_effort':
      return `${param === 'reasoning_effort' ? 'the reasoning effort' : param} was refused and is no longer sent`;
    case 'tool_choice':
      return 'a forced tool choice was refused; the model now chooses when to call a tool';
    case 'tools':
      return 'tools were refused; tool calls now go through the prompt-level protocol';
    case 'strict':
      return 'strict schemas were refused; schemas are now sent without strict';
    case 'max_tokens':
      return 'max_tokens was refused; max_completion_tokens is sent instead';
    case 'max_completion_tokens':
      return 'max_completion_tokens was refused; max_tokens is sent instead';
    case 'response_format':
      return 'a response format was refused; the schema now goes in the prompt';
  }
}

export const adviceFor = {
  failure,
  /** A shutdown still ahead is worth changing now; an unknown model is fine (its server corrects the guesses). */
  catalogue(status: CatalogueStatus): string[] {
    if (status.status === 'shutdown-ahead') return [`${status.name} shuts down on ${status.shutdown}: ${switchModel(status.replacement ?? 'a current model')} before then`];
    return [];
  },
  costUnknown(model: LanguageModel): string {
    return `its cost is unknown, so money caps cannot hold: add prices: { inputPerMTok, outputPerMTok } to model "${model.id}" in the models file`;
  },
};
