import { z } from 'zod';
import { Priority } from '../../model/criterion';

/**
 * What a person locked (or, where nothing is locked, what the criteria were when the person
 * last spoke: the session baseline). The done gate holds an agent to this record, never to
 * the file the agent can edit, which would let it rewrite what it is held to. It is read back
 * with this schema: a record that does not parse is refused, and the gate says so and blocks
 * rather than letting the agent stop.
 */
export const LockedCriterion = z
  .object({
    /** The engine's id (a PRD's own; an ISA's claims as the engine names them). */
    id: z.string().min(1),
    text: z.string(),
    priority: Priority,
    kind: z.enum(['criterion', 'anti-criterion']),
    /** As a PRD writes it after `Verify:`; null when none (a judge decides). */
    verify: z.string().nullable(),
  })
  .strict();
export type LockedCriterion = z.infer<typeof LockedCriterion>;

/** One input a criterion's verification depends on, with the SHA-256 of its content (null: absent). */
export const LockedInput = z
  .object({
    /** `executes`: a file a check's command runs or is configured by (check-inputs.ts). */
    kind: z.enum(['task', 'allow-list', 'gitignore', 'protected', 'executes']),
    /** Workspace-relative path, or for a task its name. */
    name: z.string().min(1),
    digest: z.string().regex(/^[0-9a-f]{64}$/).nullable(),
    /**
     * A `.gitignore`'s text as approved (bounded): a Grep searches under these rules, so an
     * agent's edit to a `.gitignore` neither hides nor adds matches. Absent: too long to keep,
     * or recorded before texts were kept; a change is then TAMPERED.
     */
    text: z.string().max(64 * 1024).optional(),
  })
  .strict();
export type LockedInput = z.infer<typeof LockedInput>;

export const LockHow = z.enum(['terminal', 'editor', 'prompt']);
export type LockHow = z.infer<typeof LockHow>;

export const LockedPrd = z
  .object({
    /** Workspace-relative, forward slashes. */
    path: z.string().min(1),
    format: z.enum(['prd', 'isa']),
    /** The criteria version a person approved; each approval adds one. */
    version: z.number().int().positive(),
    at: z.iso.datetime(),
    /** Who locked or approved it (the user name), or "the person's prompt" for a baseline. */
    by: z.string().min(1),
    how: LockHow,
    /** Why the gate holds this PRD, where a baseline chose it ("the PRD the person's prompt names"). */
    why: z.string().max(300).optional(),
    /** The PRD folder setting when it was locked: a PRD outside it was moved out of the gate's sight. */
    prdFolder: z.string(),
    criteria: z.array(LockedCriterion),
    /** The `protected:` globs (or the default) the protected files were found with. */
    protectedGlobs: z.array(z.string()),
    inputs: z.array(LockedInput),
    /** The walk for protected files and .gitignore files stopped at its bound: files past it are not locked. */
    walkTruncated: z.boolean(),
    /**
     * An ISA's `principal_stated_goal` and `frozen` (LifeOS v2.18: the goal is immutable unless a
     * `refined:` decision changes it): a change is TAMPERED like a criterion's. Absent: neither key.
     */
    goal: z.object({ principalStatedGoal: z.string().nullable().optional(), frozen: z.unknown().optional() }).strict().optional(),
  })
  .strict();
export type LockedPrd = z.infer<typeof LockedPrd>;

export const CriteriaLockFile = z
  .object({
    version: z.literal(1),
    kind: z.enum(['lock', 'baseline']),
    /** The workspace's real path (the state folder is keyed by its hash). */
    workspace: z.string().min(1),
    prds: z.array(LockedPrd),
  })
  .strict();
export type CriteriaLockFile = z.infer<typeof CriteriaLockFile>;
