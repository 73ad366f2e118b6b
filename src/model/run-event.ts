import { z } from 'zod';
import { Phase } from './run';

/** Something that happened in a run, with what it cost. */
export const RunEvent = z
  .object({
    runId: z.string().min(1),
    seq: z.number().int().nonnegative(),
    at: z.iso.datetime(),
    phase: Phase.optional(),
    kind: z.enum(['phase', 'criterion', 'tool', 'model', 'approval', 'verification', 'budget', 'error', 'note']),
    message: z.string(),
    role: z.enum(['manager', 'specialist', 'verifier', 'user', 'system']).optional(),
    model: z.string().optional(),
    inputTokens: z.number().int().nonnegative().default(0),
    outputTokens: z.number().int().nonnegative().default(0),
    costUsd: z.number().nonnegative().default(0),
    /** Of inputTokens, read from the provider's prompt cache (absent on runs before it was counted). */
    cachedInputTokens: z.number().int().nonnegative().optional(),
    /** Of inputTokens, written to the provider's prompt cache. */
    cacheWriteTokens: z.number().int().nonnegative().optional(),
    durationMs: z.number().nonnegative().optional(),
  })
  .strict();
export type RunEvent = z.infer<typeof RunEvent>;
