/**
 * Verification was cancelled (AbortSignal): running processes were killed and the criteria
 * not yet started were never started. Not a failure, like LlmCancelledError: nothing is
 * reported as FAIL because of it. `results` holds what finished before the cancel.
 */
export class VerifyCancelledError extends Error {
  /** Recognised by `isCancellation` (src/core/errors.ts), like every cancellation. */
  readonly code = 'cancelled';
  constructor(readonly finished: number, readonly total: number) {
    super(`verification was cancelled after ${finished} of ${total} criteria`);
    this.name = 'VerifyCancelledError';
  }
}
