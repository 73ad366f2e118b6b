/** Thrown inside a verifier when its signal was aborted; the engine turns it into VerifyCancelledError. */
export class VerifierCancelled extends Error {
  readonly code = 'cancelled';
  constructor() {
    super('cancelled');
    this.name = 'VerifierCancelled';
  }
}

export function cancelled(): VerifierCancelled {
  return new VerifierCancelled();
}
