import { z } from 'zod';

/**
 * What the done gate decided at one agent stop, as the store keeps it: the host that asked,
 * the verdict, and per held PRD the criteria found TAMPERED. `released` is a stop let through
 * with criteria unmet (the limit of blocks in a row, the agent said it needs a person, or the
 * gate ran out of time at the limit): what a person most needs to hear about.
 */
export const GateVerdictKind = z.enum(['passed', 'blocked', 'released']);
export type GateVerdictKind = z.infer<typeof GateVerdictKind>;

export const GateOutcomeRecord = z
  .object({
    id: z.string().min(1),
    at: z.iso.datetime(),
    /** The host adapter's id (claude-code, codex, …). */
    host: z.string().min(1).max(64),
    /** The host's event (Stop, SubagentStop, …). */
    event: z.string().max(64),
    /** The session's short digest (`session 1a2b3c4d`), never the host's session key itself. */
    session: z.string().max(64),
    verdict: GateVerdictKind,
    /** Blocks in a row before this stop. */
    before: z.number().int().nonnegative(),
    /** Each held PRD (workspace-relative) and what of it was TAMPERED: criterion ids, the PRD's path, or an input a check depends on. */
    prds: z.array(z.object({ path: z.string().min(1).max(4096), tampered: z.array(z.string().min(1).max(256)).max(1000) }).strict()).max(100),
    timedOut: z.boolean().optional(),
  })
  .strict();
export type GateOutcomeRecord = z.infer<typeof GateOutcomeRecord>;
