import { z } from 'zod';
import { EffortLevel } from './effort';
import { Outcome } from './outcome';

/**
 * Loop mode: the Algorithm over many artifacts (workspace files) at once. A loop
 * owns one sub-run per artifact it works; these are the shapes the store keeps, the engine
 * reports and the editor shows (the artifacts × criteria matrix).
 */

/** `--shard I/N`: the I-th (1-based) of N deterministic shards of the artifact list. */
/** At most this many shards: a count is bounded before anything is allocated for it. */
export const MAX_SHARDS = 1024;

export const LoopShard = z
  .object({ index: z.number().int().positive(), count: z.number().int().positive().max(MAX_SHARDS) })
  .strict()
  .refine((s) => s.index <= s.count, { message: 'a shard index is between 1 and the shard count' });
export type LoopShard = z.infer<typeof LoopShard>;

export const LoopSpec = z
  .object({
    /** Workspace-relative glob of the artifacts (gitignore dialect, as GREP's). */
    glob: z.string().min(1),
    /** The ISC template's artifact type, e.g. docs.page. */
    isc: z.string().min(1),
    /** Agents wanted; the pool is min(agents, the effort level's parallelism). */
    agents: z.number().int().positive(),
    effort: EffortLevel,
    maxIterations: z.number().int().positive(),
    shard: LoopShard.optional(),
    /** Verify only, never work (what a CI shard does). */
    verifyOnly: z.boolean().default(false),
    /** The loop's time budget; by default the level's budget per artifact worked, at least the level's. */
    budgetSeconds: z.number().positive().optional(),
  })
  .strict();
export type LoopSpec = z.infer<typeof LoopSpec>;
export type LoopSpecInput = z.input<typeof LoopSpec>;

export const LOOP_STATES = ['RUNNING', 'COMPLETE', 'FAILED', 'BUDGET_EXHAUSTED', 'CANCELLED'] as const;
export const LoopState = z.enum(LOOP_STATES);
export type LoopState = z.infer<typeof LoopState>;

/**
 * An artifact in the loop: PENDING (not verified yet), WORKING (claimed by an agent),
 * PASSING (every CRITICAL criterion PASS), FAILING.
 */
export const LoopArtifactStatus = z.enum(['PENDING', 'WORKING', 'PASSING', 'FAILING']);
export type LoopArtifactStatus = z.infer<typeof LoopArtifactStatus>;

/** What the validator said about one sub-run's edit. */
export const ValidatorVerdict = z.enum(['approved', 'rejected', 'not-consulted']);
export type ValidatorVerdict = z.infer<typeof ValidatorVerdict>;

export const LoopFailure = z
  .object({ criterionId: z.string().min(1), outcome: Outcome, evidence: z.string(), repairTarget: z.string().optional() })
  .strict();
export type LoopFailure = z.infer<typeof LoopFailure>;

/** The builder–validator pair's decision on one sub-run; a rejection is written into the loop PRD. */
export const LoopNotice = z
  .object({
    file: z.string().min(1),
    iteration: z.number().int().positive(),
    runId: z.string().min(1).optional(),
    verdict: ValidatorVerdict,
    /** True: the edit was put back (the file is as it was before the sub-run). */
    reverted: z.boolean(),
    /** True: the sub-run changed no file, so there was nothing to put back. */
    unchanged: z.boolean().optional(),
    /** Who decided: the validator's model, or the mechanical verification alone. */
    by: z.string().min(1),
    failures: z.array(LoopFailure),
    at: z.iso.datetime(),
  })
  .strict();
export type LoopNotice = z.infer<typeof LoopNotice>;

/** A claim keeps two agents (or two processes) off one artifact; it expires so a crash frees it. */
export const LoopClaim = z.object({ owner: z.string().min(1), expiresAt: z.iso.datetime() }).strict();
export type LoopClaim = z.infer<typeof LoopClaim>;

export const LoopArtifact = z
  .object({
    loopId: z.string().min(1),
    /** Workspace-relative path. */
    file: z.string().min(1),
    /** Its shard of the loop's shard count (1 when unsharded). */
    shard: z.number().int().positive(),
    status: LoopArtifactStatus,
    /** The iteration of its last acknowledged result (0: none yet). */
    iteration: z.number().int().nonnegative(),
    /** The iteration in which it was last worked (0: never); a resumed loop does not work it again in that iteration. */
    workedIteration: z.number().int().nonnegative().default(0),
    /** Its latest sub-run, when it was worked. */
    runId: z.string().min(1).optional(),
    /** Every sub-run it had, oldest first. */
    runIds: z.array(z.string().min(1)).default([]),
    /** Outcome by criterion id (the template's ids) from its last verification. */
    outcomes: z.record(z.string(), Outcome),
    /** Evidence by criterion id, clipped. */
    evidence: z.record(z.string(), z.string()).default({}),
    claim: LoopClaim.optional(),
    notices: z.array(LoopNotice).default([]),
    updatedAt: z.iso.datetime(),
  })
  .strict();
export type LoopArtifact = z.infer<typeof LoopArtifact>;

export const LoopLogEntry = z
  .object({
    iteration: z.number().int().positive(),
    at: z.iso.datetime(),
    effort: EffortLevel,
    passing: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    failing: z.array(z.string()),
    /** e.g. "iteration 2: 87/100 artifacts passing; 13 failing: a, b, c". */
    message: z.string().min(1),
  })
  .strict();
export type LoopLogEntry = z.infer<typeof LoopLogEntry>;

export const LoopStartedBy = z.object({ who: z.enum(['person', 'schedule']), schedule: z.string().min(1).max(40).optional() }).strict();
export type LoopStartedBy = z.infer<typeof LoopStartedBy>;

export const Loop = z
  .object({
    id: z.string().min(1),
    spec: LoopSpec,
    state: LoopState,
    /** The iteration under way (or the last one). */
    iteration: z.number().int().nonnegative(),
    /** The effort of the iteration under way (it decays after the third). */
    effort: EffortLevel,
    /** The template's criterion ids, in order (the matrix's columns). */
    criterionIds: z.array(z.string().min(1)),
    total: z.number().int().nonnegative(),
    passing: z.number().int().nonnegative(),
    budgetSeconds: z.number().positive(),
    /** Time spent in earlier sessions (before a resume). */
    elapsedMs: z.number().nonnegative(),
    prdPath: z.string().min(1).optional(),
    log: z.array(LoopLogEntry).default([]),
    reason: z.string().optional(),
    /** Unmet artifacts when the loop ended FAILED or BUDGET_EXHAUSTED. */
    unmet: z.array(z.string()).default([]),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime().optional(),
    /** Who started it: a person, or a schedule by name (`--started-by schedule:NAME`, which a written schedule passes). */
    startedBy: LoopStartedBy.optional(),
  })
  .strict();
export type Loop = z.infer<typeof Loop>;

/** One artifact as progress reports and the matrix show it. */
export const LoopArtifactView = z
  .object({ file: z.string(), status: LoopArtifactStatus, runId: z.string().optional(), outcomes: z.record(z.string(), Outcome), iteration: z.number().int().nonnegative() })
  .strict();
export type LoopArtifactView = z.infer<typeof LoopArtifactView>;

/** What the engine tells its host after every acknowledged change (the status bar, the matrix). */
export const LoopProgress = z
  .object({
    loopId: z.string().min(1),
    iteration: z.number().int().nonnegative(),
    state: LoopState,
    effort: EffortLevel,
    criterionIds: z.array(z.string()),
    artifacts: z.array(LoopArtifactView),
    /** The files that changed since the previous progress (all of them the first time). */
    changed: z.array(z.string()),
    passing: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    /** `waitedMs`: this session's time waiting for a person, not in `usedMs` (so not in the budget). */
    budget: z.object({ usedMs: z.number().nonnegative(), totalMs: z.number().positive(), waitedMs: z.number().nonnegative().optional() }).strict(),
    /** The latest log line. */
    message: z.string().optional(),
  })
  .strict();
export type LoopProgress = z.infer<typeof LoopProgress>;

/**
 * What a shard writes (`ideal-state loop --shard I/N --out FILE`) and `loop merge` reads:
 * the spec (without the shard), which shard, and each artifact's result.
 */
export const LoopShardFile = z
  .object({
    kind: z.literal('ideal-state.loop-shard'),
    /** 2: each artifact carries the hash of the content it was verified at. */
    version: z.literal(2),
    /** A hash of the spec without its shard: shards of one loop share it. */
    specKey: z.string().min(1).max(64),
    spec: LoopSpec,
    shard: LoopShard,
    criterionIds: z.array(z.string().max(200)).max(1000),
    state: LoopState,
    iteration: z.number().int().nonnegative().max(100_000),
    artifacts: z
      .array(
        z
          .object({
            file: z.string().min(1).max(4096),
            /** sha256 (hex) of the artifact's content when it was verified: a merge refuses a result for other content. */
            sha256: z.string().regex(/^[0-9a-f]{64}$/, 'a sha256 in hex'),
            status: LoopArtifactStatus,
            outcomes: z.record(z.string().max(200), Outcome),
            evidence: z.record(z.string().max(200), z.string().max(65_536)).default({}),
            runId: z.string().max(200).optional(),
          })
          .strict(),
      )
      .max(1_000_000),
  })
  .strict();
export type LoopShardFile = z.infer<typeof LoopShardFile>;

/** The merged (or unsharded) report: the same shape whichever way it was made. */
export const LoopReport = z
  .object({
    glob: z.string(),
    isc: z.string(),
    criterionIds: z.array(z.string()),
    total: z.number().int().nonnegative(),
    passing: z.number().int().nonnegative(),
    failing: z.array(z.string()),
    artifacts: z.array(z.object({ file: z.string(), status: LoopArtifactStatus, outcomes: z.record(z.string(), Outcome) }).strict()),
  })
  .strict();
export type LoopReport = z.infer<typeof LoopReport>;
