import { z } from 'zod';
import { FailureLabel, Phase, type AnyCriterion, type Candidate, type Decision, type Packet, type Run, type VerificationReport } from '.';

/**
 * One committed step of a run (its own table, migration 3): which node ran, where the
 * run goes next, and the engine's small bookkeeping, so a resume continues from here.
 */
export const RunStep = z
  .object({
    runId: z.string().min(1),
    seq: z.number().int().nonnegative(),
    at: z.iso.datetime(),
    phase: Phase,
    iteration: z.number().int().nonnegative(),
    /** What the node's gate said. */
    gate: z.enum(['passed', 'refused', 'skipped']),
    /** The node to run next; absent when the run has ended. */
    next: Phase.optional(),
    memo: z
      .object({
        /** Criterion id → packet ids owning it, or "waived". */
        coverage: z.record(z.string(), z.array(z.string())).default({}),
        /** Consecutive iterations that failed with this label. */
        failureStreak: z.object({ label: FailureLabel, count: z.number().int().positive() }).strict().optional(),
        /** The report with the most passing criteria so far (BUDGET_EXHAUSTED's best candidate). */
        bestReportId: z.string().optional(),
        /** What changed since the last iteration, for the working set. */
        delta: z.string().default(''),
        /** Gate refusals of the node about to run again, with what the gate said. */
        retry: z.object({ phase: Phase, count: z.number().int().positive(), problems: z.array(z.string()) }).strict().optional(),
        /** Past the compress threshold: no new packets, straight to VERIFY and LEARN. */
        compressed: z.boolean().default(false),
        /** Criteria the user wrote (a PRD's): kept verbatim by OBSERVE and THINK. */
        pinned: z.array(z.string()).default([]),
        /** Rows OBSERVE added from memory (INFERRED, provenance in their notes): THINK may reword them, not drop them; the user may. */
        learned: z.array(z.string()).default([]),
        /** Passing results in the best report. */
        bestPassing: z.number().int().nonnegative().default(0),
        /** The exit state VERIFY decided, applied by LEARN. */
        exit: z.enum(['COMPLETE', 'BUDGET_EXHAUSTED', 'BLOCKED']).optional(),
        exitReason: z.string().optional(),
        /** Why the run must end after the next VERIFY/LEARN (budget, tokens, blocked). */
        stopping: z.enum(['BUDGET_EXHAUSTED', 'BLOCKED']).optional(),
        stopReason: z.string().optional(),
        /**
         * Exact commands approved for this run's verification (VERIFY asked, or the allow-list):
         * the only commands the run writes into the PRD; one it proposed and nobody
         * approved stays out, so CI never runs it.
         */
        approvedCommands: z.array(z.string()).default([]),
        /**
         * Exact commands that were not approved at the last verification that asked:
         * they stay in the PRD as the criterion's method with a "Not approved" note, so what the
         * PRD says is unchanged; `ideal-state verify` refuses them (the note, and the denial in
         * the user's state folder) until a person approves.
         */
        deniedCommands: z.array(z.string()).default([]),
        /**
         * Criteria whose text passed the review gate (`testable`, THINK's): the only ones the run
         * adds to the PRD, so a draft the gates refused never reaches it. A run starts with none;
         * absent (runs stored before it existed) shows every criterion, as they did.
         */
        reviewed: z.array(z.string()).optional(),
        /**
         * What the candidates of an iteration that goes round again did: they are cleared for the
         * next iteration, and the PRD's LOG entry for this one still says what was done (never
         * "no candidate" after an approved edit).
         */
        work: z.object({ iteration: z.number().int().nonnegative(), summary: z.string() }).strict().optional(),
        /** The PRD's `max_iterations`, which replaces the level's for this run. */
        maxIterations: z.number().int().positive().optional(),
        /**
         * Criteria whose check passed on the workspace as it was when the run accepted them, before
         * any work (src/algorithm/probe.ts): a "Probe" note under each in the PRD.
         * Absent: the run has not probed yet (it probes once, after BUILD).
         */
        probed: z.array(z.string()).optional(),
      })
      .strict(),
  })
  .strict();
export type RunStep = z.infer<typeof RunStep>;
export type StepMemo = RunStep['memo'];

export const emptyMemo = (): StepMemo => ({ coverage: {}, delta: '', compressed: false, pinned: [], learned: [], bestPassing: 0, approvedCommands: [], deniedCommands: [] });

/** Everything the engine holds about a run between steps; rebuilt from the store on resume. */
export interface AlgorithmState {
  run: Run;
  /** The current criteria version's rows. */
  criteria: AnyCriterion[];
  /** The current iteration's packets. */
  packets: Packet[];
  /** The current iteration's candidates. */
  candidates: Candidate[];
  /** The latest verification report, if any. */
  report?: VerificationReport;
  decisions: Decision[];
  memo: StepMemo;
  /** Sequence numbers of the next step and event. */
  stepSeq: number;
  eventSeq: number;
}
