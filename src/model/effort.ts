import { z } from 'zod';

/** The seven effort levels, smallest first. */
export const EFFORT_LEVELS = ['INSTANT', 'FAST', 'STANDARD', 'EXTENDED', 'ADVANCED', 'DEEP', 'COMPREHENSIVE'] as const;
export const EffortLevel = z.enum(EFFORT_LEVELS);
export type EffortLevel = z.infer<typeof EffortLevel>;

export const DEFAULT_EFFORT_LEVEL: EffortLevel = 'STANDARD';

/** One row of the effort table. `maxIterations: null` means "until the budget runs out". */
const EffortSpecFields = z
  .object({
    budgetSeconds: z.number().positive(),
    minCriteria: z.number().int().nonnegative(),
    maxCriteria: z.number().int().positive(),
    maxIterations: z.number().int().positive().nullable(),
    parallelism: z.number().int().positive(),
    planMode: z.boolean(),
    constraintExtraction: z.boolean(),
    description: z.string().min(1),
  })
  .strict();
export const EffortSpec = EffortSpecFields.refine((s) => s.minCriteria <= s.maxCriteria, {
    message: 'minCriteria must not exceed maxCriteria',
    path: ['minCriteria'],
  });
export type EffortSpec = z.infer<typeof EffortSpec>;

const levelsOf = <T extends z.ZodType>(spec: T) =>
  z.object(Object.fromEntries(EFFORT_LEVELS.map((l) => [l, spec])) as Record<EffortLevel, T>).strict();

/** The effort table file: every level, plus aliases that map other names onto them. */
export const EffortTable = z
  .object({
    version: z.literal(1),
    compressAtPercent: z.number().positive(),
    levels: levelsOf(EffortSpec),
    aliases: z.record(z.string().regex(/^[A-Z][A-Z_]*$/, 'alias names are upper case words'), EffortLevel),
  })
  .strict();
export type EffortTable = z.infer<typeof EffortTable>;

/** A workspace override: any subset of levels, each with any subset of fields. */
export const EffortTableOverride = z
  .object({
    version: z.literal(1),
    compressAtPercent: z.number().positive().optional(),
    levels: levelsOf(EffortSpecFields.partial().optional()).partial().optional(),
    aliases: z.record(z.string().regex(/^[A-Z][A-Z_]*$/, 'alias names are upper case words'), EffortLevel).optional(),
  })
  .strict();
export type EffortTableOverride = z.infer<typeof EffortTableOverride>;
