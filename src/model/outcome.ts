import { z } from 'zod';

/** A verifier's verdict. UNKNOWN is honest, never a pass. */
export const Outcome = z.enum(['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN']);
export type Outcome = z.infer<typeof Outcome>;

/** The blueprint's failure taxonomy, plus execution errors of the environment. */
export const FailureLabel = z.enum([
  'REQUIREMENT_COVERAGE',
  'CONSTRAINT_VIOLATION',
  'INTERNAL_INCONSISTENCY',
  'UNSUPPORTED_CLAIM',
  'AMBIGUITY',
  'SCOPE_ERROR',
  'OVERCONFIDENCE',
  'EXECUTION_ERROR',
]);
export type FailureLabel = z.infer<typeof FailureLabel>;

/**
 * The done gate's outcome of a criterion: a verifier's, or TAMPERED when a locked criterion
 * (its text, priority, kind or method) or an input its verification depends on changed without
 * a person's approval. No verifier returns TAMPERED; it blocks like a CRITICAL FAIL.
 */
export const GateOutcome = z.enum([...Outcome.options, 'TAMPERED']);
export type GateOutcome = z.infer<typeof GateOutcome>;
