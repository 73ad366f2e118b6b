import { CancelledError } from '../model/errors';
import { processSecrets } from '../model/redaction';
/**
 * Errors from language model calls. Cancellation is the product's one CancelledError
 * (src/model/errors.ts, via `callCancelled`) and never a failure.
 * Messages never carry an API key or the user's content.
 */
export abstract class LlmError extends Error {
  /** What callers test (src/model/errors.ts); the class name is only for people reading a stack. */
  abstract readonly code: string;
  override name = 'LlmError';
}


/** No reply within the timeout, after the provider's own retries. */
export class LlmTimeoutError extends LlmError {
  readonly code = 'timeout';
  override readonly name = 'LlmTimeoutError';
  constructor(readonly model: string, readonly timeoutMs: number | undefined) {
    super(`${model} did not answer within ${timeoutMs === undefined ? 'the timeout' : `${timeoutMs} ms`}`);
  }
}

export type ProviderFailure = 'auth' | 'rate-limit' | 'server' | 'bad-request' | 'not-found' | 'connection' | 'bad-response' | 'other';

/** The provider failed: an HTTP error after retries, a refused connection, a reply that cannot be read. */
export class LlmProviderError extends LlmError {
  readonly code = 'provider';
  override readonly name = 'LlmProviderError';
  constructor(
    readonly model: string,
    readonly failure: ProviderFailure,
    message: string,
    readonly status?: number,
    /** How long the server asked to wait before a retry, when it said. */
    readonly retryAfterMs?: number,
    /** The request parameter the server named as the problem (OpenAI's `error.param`), when it did. */
    readonly param?: string,
  ) {
    super(`${model}: ${message}`);
  }
}

/**
 * The model declined to answer (OpenAI `refusal` output, Anthropic `stop_reason: refusal`).
 * Never repaired in the same conversation; the router may ask another model.
 */
export class LlmRefusalError extends LlmError {
  readonly code = 'refusal';
  override readonly name = 'LlmRefusalError';
  constructor(
    readonly model: string,
    /** The model's own refusal text, when it gave one (may be empty). */
    readonly refusal: string,
  ) {
    super(`${model} refused to answer${refusal ? `: ${refusal.split('\n')[0]!.slice(0, 200)}` : ''}`);
  }
}

/**
 * The reply was cut off before it was complete (Anthropic `stop_reason: max_tokens`, OpenAI
 * `status: incomplete` with `max_output_tokens`), so a structured answer cannot be trusted.
 */
export class LlmTruncatedError extends LlmError {
  readonly code = 'truncated';
  override readonly name = 'LlmTruncatedError';
  constructor(
    readonly model: string,
    /** The output cap the call was made with. */
    readonly maxOutputTokens: number | undefined,
    /** Why the provider stopped (`max_tokens`, `max_output_tokens`, `content_filter`, …). */
    readonly reason: string,
  ) {
    super(`${model} stopped before the reply was complete (${reason}${maxOutputTokens ? ` at ${maxOutputTokens} output tokens` : ''})`);
  }
}

/** The model is past its provider's shutdown date: refused before any call. */
export class ModelRetiredError extends LlmError {
  readonly code = 'model-retired';
  override readonly name = 'ModelRetiredError';
  constructor(
    readonly model: string,
    readonly shutdown: string,
    readonly replacement: string | undefined,
  ) {
    super(`${model} was shut down by its provider on ${shutdown}${replacement ? `: use ${replacement} instead` : ''} (change the model in the models file or with --model)`);
  }
}

export interface OutputIssue {
  readonly path: string;
  readonly message: string;
}

/** The model's structured output did not match the schema, even after the repair retry. */
export class StructuredOutputError extends LlmError {
  readonly code = 'invalid-output';
  override readonly name = 'StructuredOutputError';
  constructor(
    readonly model: string,
    readonly schemaName: string,
    readonly attempts: number,
    readonly issues: readonly OutputIssue[],
  ) {
    super(`${model} gave no valid "${schemaName}" in ${attempts} attempts: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
  }
}

/** A scripted provider's script is wrong or used up; names the file and the step. */
export class ScriptError extends LlmError {
  readonly code = 'script';
  override readonly name = 'ScriptError';
  constructor(
    readonly file: string,
    readonly step: number | undefined,
    detail: string,
  ) {
    super(`${file}${step === undefined ? '' : ` step ${step}`}: ${detail}`);
  }
}

/** The model configuration cannot serve the request (unknown model, missing key, bad file). */
export class LlmConfigError extends LlmError {
  readonly code = 'config';
  override readonly name = 'LlmConfigError';
}

/** Removes secrets, and anything shaped like an API key, from a text bound for a message or log. */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return processSecrets.redact(out.replace(/\b(sk|sk-ant|sk-proj|key)-[A-Za-z0-9_\-*]{6,}/g, '[redacted]')).text;
}

export const BUDGET_SCOPES = ['call', 'phase', 'run'] as const;
export type BudgetScope = (typeof BUDGET_SCOPES)[number];
export type BudgetUnit = 'tokens' | 'usd';

/**
 * A call was not made because its estimate would pass a token or money cap. Not a model
 * failure: the router neither retries nor escalates it; the caller decides (compress the
 * run, skip the call, end the run BUDGET_EXHAUSTED).
 */
export class BudgetExceededError extends LlmError {
  readonly code = 'budget';
  override readonly name = 'BudgetExceededError';
  constructor(
    readonly model: string,
    readonly scope: BudgetScope,
    readonly unit: BudgetUnit,
    /** The cap. */
    readonly limit: number,
    /** Already spent in this scope, including calls still in flight. */
    readonly spent: number,
    /** What this call would spend at most. */
    readonly estimate: number,
    readonly phase?: string,
  ) {
    const fmt = (n: number) => (unit === 'usd' ? `$${n.toFixed(4)}` : `${Math.round(n)} tokens`);
    const where = scope === 'phase' ? `the ${phase ?? 'phase'} phase` : scope === 'run' ? 'the run' : 'one call';
    super(`call to ${model} not made: it could spend ${fmt(estimate)}, and with ${fmt(spent)} already spent that passes the ${unit === 'usd' ? 'money' : 'token'} cap of ${fmt(limit)} for ${where}`);
  }
}

/** A tool call's arguments do not match the tool's schema; names the tool and the fields. */
export class ToolArgumentsError extends LlmError {
  readonly code = 'tool-arguments';
  override readonly name = 'ToolArgumentsError';
  constructor(
    readonly tool: string,
    readonly callId: string,
    readonly issues: readonly OutputIssue[],
  ) {
    super(`arguments of tool "${tool}" (call ${callId}) do not match its schema: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`);
  }
}

/** The caller cancelled a call (AbortSignal): the one CancelledError. Nothing is retried, nothing escalates. */
export function callCancelled(model: string): CancelledError {
  return new CancelledError(`call to ${model} was cancelled`);
}
