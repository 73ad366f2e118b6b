import { z } from 'zod';

/** A unit of work from PLAN that owns criterion ids. */
export const Packet = z
  .object({
    id: z.string().min(1),
    runId: z.string().min(1),
    iteration: z.number().int().nonnegative(),
    title: z.string().min(1),
    criterionIds: z.array(z.string().min(1)).min(1, 'a packet owns at least one criterion'),
    dependsOn: z.array(z.string().min(1)).default([]),
    status: z.enum(['PLANNED', 'CLAIMED', 'DONE', 'FAILED', 'WAIVED']),
    claimedBy: z.string().optional(),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .strict();
export type Packet = z.infer<typeof Packet>;

export const FileEdit = z
  .object({
    path: z.string().min(1),
    kind: z.enum(['create', 'modify', 'delete']),
    before: z.string().optional(),
    after: z.string().optional(),
  })
  .strict();
export type FileEdit = z.infer<typeof FileEdit>;

/** What a specialist produced for a packet, with its assumptions and evidence. */
export const Candidate = z
  .object({
    id: z.string().min(1),
    runId: z.string().min(1),
    packetId: z.string().min(1),
    iteration: z.number().int().nonnegative(),
    producedBy: z.string().min(1),
    summary: z.string(),
    edits: z.array(FileEdit).default([]),
    commandOutput: z.string().optional(),
    assumptions: z.array(z.string()).default([]),
    evidence: z.array(z.string()).default([]),
    createdAt: z.iso.datetime(),
  })
  .strict();
export type Candidate = z.infer<typeof Candidate>;
