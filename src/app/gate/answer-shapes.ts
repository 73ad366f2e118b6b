import { z } from 'zod';
import { GateOutcome, Outcome } from '../../model/outcome';

/**
 * The shapes of the done gate's answers (src/app/gate/answers.ts builds them): the MCP server
 * declares them as its tools' output schemas. They live apart from the functions that build
 * them so the stop hook, which only builds and prints them, does not construct them at every
 * stop: the hook starts cold at every stop of every turn, and each schema built is time the agent waits.
 */

/** One criterion as `ideal-state_criteria` lists it, with what the store last recorded of it. */
export const CriterionRow = z.object({
  id: z.string(),
  text: z.string(),
  kind: z.enum(['criterion', 'anti-criterion']),
  priority: z.string(),
  /** As the PRD writes it after `Verify:`; null when it names none (a judge decides). */
  verify: z.string().nullable(),
  /** The last stored verification of this criterion, if any. */
  lastOutcome: z.object({ outcome: Outcome, verifiedAt: z.string() }).nullable(),
  /** True when that outcome may no longer hold (the criterion or the work changed since); null when never verified. */
  stale: z.boolean().nullable(),
});
export type CriterionRow = z.infer<typeof CriterionRow>;

export const CriteriaAnswer = z.object({
  prd: z.string(),
  criteriaVersion: z.number().int(),
  criteria: z.array(CriterionRow),
  /** The file's errors, each with its line (the MCP server lists them; the editor refuses a file that has any). */
  problems: z.array(z.string()).optional(),
  /** Why the done gate holds an agent to this PRD ("locked by …", "the PRD the person's prompt names …"); absent: it does not. */
  held: z.string().optional(),
});
export type CriteriaAnswer = z.infer<typeof CriteriaAnswer>;

/** One criterion's outcome: the evidence, and what it needs when it does not pass. */
export const CriterionOutcome = z.object({
  id: z.string(),
  priority: z.string(),
  /** TAMPERED only from the stop gate, for a locked criterion or input that changed. */
  outcome: GateOutcome,
  evidence: z.string(),
  failureLabel: z.string().optional(),
  repairTarget: z.string().optional(),
  locations: z.array(z.object({ file: z.string(), line: z.number().int().positive().optional() })).optional(),
});
export type CriterionOutcome = z.infer<typeof CriterionOutcome>;

export const VerifyAnswer = z.object({
  prd: z.string(),
  /** True when every CRITICAL criterion verified passes: the only state in which the work is done. */
  allCriticalPass: z.boolean(),
  summary: z.string(),
  counts: z.record(z.string(), z.number()),
  results: z.array(CriterionOutcome),
  /** Commands the approval rules did not let run: their criteria are UNKNOWN, never passed. */
  skippedCommands: z.array(z.object({ command: z.string(), reason: z.string() })),
});
export type VerifyAnswer = z.infer<typeof VerifyAnswer>;

/**
 * A verify answer as an agent's tool gives it: `allCriticalPass` covers every CRITICAL
 * criterion of the file, or is null with `partial: true` when only some ids were verified and a
 * CRITICAL one was left out: one passing id never says the work is done.
 */
export const ToolVerifyAnswer = VerifyAnswer.extend({
  allCriticalPass: z.boolean().nullable(),
  partial: z.boolean().optional(),
});
export type ToolVerifyAnswer = z.infer<typeof ToolVerifyAnswer>;
