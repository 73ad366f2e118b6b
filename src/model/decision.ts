import { z } from 'zod';

/** An entry in a run's decisions log (what the manager decided, and why). */
export const Decision = z
  .object({
    id: z.string().min(1),
    runId: z.string().min(1),
    at: z.iso.datetime(),
    by: z.enum(['manager', 'user', 'system']),
    decision: z.string().min(1),
    rationale: z.string().min(1, 'a decision records why'),
    alternatives: z.array(z.string()).default([]),
    criteriaVersion: z.number().int().nonnegative().optional(),
  })
  .strict();
export type Decision = z.infer<typeof Decision>;
