import { z } from 'zod';
import { FailureLabel, Outcome } from './outcome';

/** One criterion's verdict with its evidence. */
export const CriterionResult = z
  .object({
    criterionId: z.string().min(1),
    outcome: Outcome,
    evidence: z.string(),
    actual: z.string().optional(),
    threshold: z.string().optional(),
    durationMs: z.number().nonnegative(),
    failureLabel: FailureLabel.optional(),
    /** What must become true — never how to make it so. */
    repairTarget: z.string().optional(),
    locations: z.array(z.object({ file: z.string(), line: z.number().int().positive() }).strict()).default([]),
    /** How many credentials were taken out of this result's texts (model/redaction.ts); absent when none. */
    redactions: z.number().int().positive().optional(),
  })
  .strict()
  .refine((r) => r.outcome === 'PASS' || r.failureLabel !== undefined, {
    message: 'a result that is not PASS needs a failure label',
    path: ['failureLabel'],
  });
export type CriterionResult = z.infer<typeof CriterionResult>;

/** The verifier's report on one candidate (or on the workspace as it stands). */
export const VerificationReport = z
  .object({
    id: z.string().min(1),
    runId: z.string().min(1),
    iteration: z.number().int().nonnegative(),
    criteriaVersion: z.number().int().nonnegative(),
    candidateId: z.string().optional(),
    results: z.array(CriterionResult),
    passed: z.boolean(),
    summary: z.string(),
    createdAt: z.iso.datetime(),
  })
  .strict();
export type VerificationReport = z.infer<typeof VerificationReport>;
