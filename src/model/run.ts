import { z } from 'zod';
import { EffortLevel } from './effort';

export const PHASES = ['OBSERVE', 'THINK', 'PLAN', 'BUILD', 'EXECUTE', 'VERIFY', 'LEARN'] as const;
export const Phase = z.enum(PHASES);
export type Phase = z.infer<typeof Phase>;

/** Where a run is; the last four are exit states (the conditions on which a run stops). */
export const RunState = z.enum(['PENDING', 'RUNNING', 'NEEDS_APPROVAL', 'COMPLETE', 'BUDGET_EXHAUSTED', 'BLOCKED', 'CANCELLED', 'FAILED']);
export type RunState = z.infer<typeof RunState>;
export { EXIT_STATES, RUN_STATES, runStateIs } from './run-states';
export const RUN_ID = /^run-[0-9a-z]{6,}$/;

/** One execution of the Algorithm on a request. Criteria live in their own table, by version. */
export const Run = z
  .object({
    id: z.string().regex(RUN_ID, 'run ids look like run-<base36>'),
    request: z.string().min(1, 'a run needs a request'),
    effort: EffortLevel,
    state: RunState,
    phase: Phase,
    iteration: z.number().int().nonnegative(),
    criteriaVersion: z.number().int().nonnegative(),
    artifactType: z.string().min(1).optional(),
    prdPath: z.string().min(1).optional(),
    workspaceFolder: z.string().optional(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    startedAt: z.iso.datetime().optional(),
    finishedAt: z.iso.datetime().optional(),
    budgetSeconds: z.number().positive(),
    elapsedMs: z.number().nonnegative().default(0),
    /** Time spent waiting for a person (pending approvals), kept out of `elapsedMs` and so out of the budget. */
    waitedMs: z.number().nonnegative().optional(),
    exitReason: z.string().optional(),
  })
  .strict();
export type Run = z.infer<typeof Run>;
