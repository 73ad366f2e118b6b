import { CancelledError } from '../model/errors';

/**
 * Verification was cancelled (AbortSignal): running processes were killed and the criteria
 * not yet started were never started. The one cancellation error, saying how far it got;
 * what finished is kept, nothing is reported as FAIL because of it.
 */
export function verificationCancelled(finished: number, total: number): CancelledError {
  return new CancelledError(`verification was cancelled after ${finished} of ${total} criteria`, { finished, total });
}
