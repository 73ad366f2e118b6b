import { z } from 'zod';
import { CriterionSource, FailureLabel, Outcome, Priority, VerificationMethod } from '../model';

/**
 * What each role answers, by phase: the structured outputs the engine asks models for.
 * JSON schemas for providers are generated from these (llm/json-schema).
 */

const DraftCriterion = z
  .object({
    /** Left out for a new criterion; the engine numbers it. */
    id: z.string().optional(),
    anti: z.boolean().default(false),
    text: z.string().trim().min(1),
    source: CriterionSource.default('INFERRED'),
    priority: Priority.default('CRITICAL'),
    domain: z.string().min(1).optional(),
    verify: VerificationMethod.optional(),
  })
  .strict();
export type DraftCriterion = z.infer<typeof DraftCriterion>;

const DecisionDraft = z.object({ decision: z.string().min(1), rationale: z.string().min(1) }).strict();

/** OBSERVE: the request reverse-engineered into criteria. */
export const CriteriaDraft = z
  .object({ title: z.string().min(1).optional(), criteria: z.array(DraftCriterion), decisions: z.array(DecisionDraft).default([]), confidence: z.number().min(0).max(1).optional() })
  .strict();

/** THINK: the whole criteria list after review (split, added, clarified), with why. */
export const CriteriaReview = z
  .object({ criteria: z.array(DraftCriterion), decisions: z.array(DecisionDraft).default([]), confidence: z.number().min(0).max(1).optional() })
  .strict();

/** PLAN: packets that own criteria, plus criteria waived with a recorded reason. */
export const Plan = z
  .object({
    packets: z.array(z.object({ title: z.string().min(1), criterionIds: z.array(z.string()).min(1), dependsOn: z.array(z.string()).default([]) }).strict()),
    waived: z.array(z.object({ criterionId: z.string(), rationale: z.string().min(1) }).strict()).default([]),
    decisions: z.array(DecisionDraft).default([]),
  })
  .strict();

/** BUILD: a concrete verification method per criterion. */
export const VerificationPlan = z
  .object({ methods: z.array(z.object({ criterionId: z.string(), verify: VerificationMethod }).strict()), decisions: z.array(DecisionDraft).default([]) })
  .strict();

/** EXECUTE: a specialist's closing answer, kept as the candidate. */
export const CandidateReport = z
  .object({
    summary: z.string(),
    assumptions: z.array(z.string()).default([]),
    evidence: z.array(z.string()).default([]),
    /** A specialist that could not go on (e.g. a denied edit) says so; the row ends BLOCKED. */
    blocked: z.string().optional(),
  })
  .strict();

/** A CUSTOM criterion's verdict from the verifier role. */
export const Verdict = z
  .object({ outcome: Outcome, evidence: z.string(), failureLabel: FailureLabel.optional(), repairTarget: z.string().optional(), confidence: z.number().min(0).max(1).optional() })
  .strict();

export const OUTPUT_SCHEMAS = {
  'criteria-draft': CriteriaDraft,
  'criteria-review': CriteriaReview,
  plan: Plan,
  'verification-plan': VerificationPlan,
  candidate: CandidateReport,
  verdict: Verdict,
} as const;
export const OUTPUT_SCHEMA_NAMES = Object.keys(OUTPUT_SCHEMAS) as [keyof typeof OUTPUT_SCHEMAS, ...(keyof typeof OUTPUT_SCHEMAS)[]];
export type OutputSchemaName = keyof typeof OUTPUT_SCHEMAS;
