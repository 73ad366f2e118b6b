import { CancelledError } from '../../model/errors';

/** Thrown inside a verifier when its signal was aborted; the engine reports how far the set got. */
export function cancelled(): CancelledError {
  return new CancelledError('the check was cancelled');
}
