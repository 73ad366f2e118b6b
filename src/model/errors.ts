/**
 * How the product recognises an error: by its `code`, never by its class name. A production
 * bundle renames classes (`BudgetExceededError` becomes `xi`), and the extension loads the
 * engine as a second bundle, so neither `error.name` nor `instanceof` across the two can be
 * trusted; a string field can. One predicate per kind, used everywhere.
 *
 * The codes the predicates read (each error class declares its own `code`):
 * - `cancelled`: CancelledError, the one cancellation error (a model call, a verification, a command, a run);
 * - `budget`: BudgetExceededError (a token or money cap refused a model call);
 * - `node-budget-cut`: NodeBudgetCutError (a phase used its share of the wall-time budget).
 */

const CANCELLED = 'cancelled';
const BUDGET_EXCEEDED = 'budget';
const NODE_BUDGET_CUT = 'node-budget-cut';

/** The `code` of an error (the product's own, or Node's `ENOENT`-style), when it has a string one. */
export function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && code !== '' ? code : undefined;
}

/**
 * The work was cancelled: never a failure. The product's cancellation errors carry the code
 * `cancelled`; the platform's own abort (a DOMException or Node's AbortError, from `fetch`,
 * `timers/promises`, `readline` with a signal) is named `AbortError` by the platform, a name
 * no bundler of ours renames, and is recognised here and nowhere else.
 */
export function isCancellation(error: unknown): boolean {
  if (errorCode(error) === CANCELLED) return true;
  return typeof error === 'object' && error !== null && (error as { name?: unknown }).name === 'AbortError';
}

/** A token or money cap refused a model call (BudgetExceededError): the run ends BUDGET_EXHAUSTED, not FAILED. */
export function isBudgetExceeded(error: unknown): boolean {
  return errorCode(error) === BUDGET_EXCEEDED;
}

/** A phase used its share of the wall-time budget (NodeBudgetCutError): the run compresses. */
export function isNodeBudgetCut(error: unknown): boolean {
  return errorCode(error) === NODE_BUDGET_CUT;
}

/**
 * The one cancellation error: a model call, a verification, a command or a run was stopped
 * by its AbortSignal. Never a failure: nothing is retried, escalated or reported as FAIL
 * because of it. A verification says how far it got (`progress`); what finished is kept.
 */
export class CancelledError extends Error {
  override readonly name = 'CancelledError';
  readonly code = CANCELLED;
  constructor(
    message: string,
    readonly progress?: { readonly finished: number; readonly total: number },
  ) {
    super(message);
  }
}

/**
 * An error for a log line or a run event: its code and the first line of its message, never
 * its class name (which a production bundle renames). Bounded, so a long message cannot flood
 * a log.
 */
export function describeError(error: unknown): string {
  const code = errorCode(error);
  const raw = error instanceof Error ? error.message : typeof error === 'string' ? error : '';
  const message = firstLine(raw);
  if (!code) return message || 'unknown error';
  if (!message || message === code) return code;
  // Node's own messages already start with their code ("ENOENT: no such file …").
  return message.startsWith(code) ? message : `${code}: ${message}`;
}

const MAX_DESCRIBED = 300;

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0]!.trim();
  return line.length > MAX_DESCRIBED ? `${line.slice(0, MAX_DESCRIBED - 1)}…` : line;
}
