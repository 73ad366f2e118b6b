import { z } from 'zod';

/** Where a PRD file is and what the store last knew of it, for two-way sync. */
export const PrdIndexEntry = z
  .object({
    path: z.string().min(1),
    prdId: z.string().min(1),
    runId: z.string().optional(),
    title: z.string(),
    status: z.string().min(1),
    contentHash: z.string().min(1),
    updatedAt: z.iso.datetime(),
  })
  .strict();
export type PrdIndexEntry = z.infer<typeof PrdIndexEntry>;
