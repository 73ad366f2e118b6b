import type { AnyCriterion, CriterionResult } from '../../core/model';
import type { VerifyHost, VerifyOptions, VerifySetResult } from '../../verify/types';
import { engine } from '../engine';

/** What the editor needs of the verification engine (src/verify) and the PRD write-back (src/prd). */
export interface VerifyEngine {
  verifyCriteria(criteria: readonly AnyCriterion[], host: VerifyHost, options: VerifyOptions): Promise<VerifySetResult>;
  /** The PRD text with checkboxes = PASS and a LOG entry with the counts; every other line as it was. */
  writeOutcomes(text: string, results: readonly CriterionResult[], options: { now: Date }): string;
}

// TEMPORARY until the engine bundle exports these (the engine helper is writing them):
// the editor is built against their contract and says so plainly if they are missing.
export function verifyEngine(): VerifyEngine {
  const loaded = engine() as unknown as Partial<VerifyEngine>;
  if (typeof loaded.verifyCriteria !== 'function' || typeof loaded.writeOutcomes !== 'function') {
    throw new Error('this build has no verification engine yet');
  }
  return loaded as VerifyEngine;
}
