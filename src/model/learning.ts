import { z } from 'zod';
import { EffortLevel } from './effort';

/** A user's 1–10 judgement of a run, in PAI's ratings.jsonl layout plus the run it belongs to. */
export const Rating = z
  .object({
    id: z.string().min(1),
    timestamp: z.iso.datetime(),
    rating: z.number().int().min(1).max(10),
    runId: z.string().optional(),
    sessionId: z.string().min(1),
    type: z.enum(['explicit', 'implicit']),
    comment: z.string().optional(),
    sentimentSummary: z.string().optional(),
    confidence: z.number().min(0).max(1).optional(),
    context: z.string().optional(),
  })
  .strict()
  .refine((r) => r.type === 'explicit' || r.confidence !== undefined, {
    message: 'an implicit rating carries the confidence of its sentiment reading',
    path: ['confidence'],
  });
export type Rating = z.infer<typeof Rating>;

export const LearningCategory = z.enum(['ALGORITHM', 'SYSTEM']);
export type LearningCategory = z.infer<typeof LearningCategory>;

export const ReflectionAuthor = z.enum(['manager', 'facts', 'imported']);
export type ReflectionAuthor = z.infer<typeof ReflectionAuthor>;

/** The three-question look back after a run. */
export const Reflection = z
  .object({
    id: z.string().min(1),
    runId: z.string().min(1),
    timestamp: z.iso.datetime(),
    effortLevel: EffortLevel,
    artifactType: z.string().optional(),
    criteriaCount: z.number().int().nonnegative(),
    criteriaPassed: z.number().int().nonnegative(),
    criteriaFailed: z.number().int().nonnegative(),
    withinBudget: z.boolean(),
    elapsedPercent: z.number().nonnegative(),
    impliedSentiment: z.number().min(1).max(10).optional(),
    userFeedback: z.string().optional(),
    q1Self: z.string().min(1),
    q2Workflow: z.string().min(1),
    q3System: z.string().min(1),
    category: LearningCategory,
    /** Who wrote Q1–Q3: the manager model, a fact-based fallback when no model was available, or an import. */
    author: ReflectionAuthor.optional(),
    /** For a run rated 4 or less: the criteria that failed or were never proven. */
    learningNote: z.string().optional(),
    /** The request (PAI's task_description) and its PRD, for the reader and for mining. */
    request: z.string().optional(),
    prdId: z.string().optional(),
    prdPath: z.string().optional(),
    theme: z.string().optional(),
    reportId: z.string().optional(),
    version: z.string().min(1),
  })
  .strict()
  .refine((r) => r.criteriaPassed + r.criteriaFailed <= r.criteriaCount, {
    message: 'passed plus failed cannot exceed the criteria count',
    path: ['criteriaPassed'],
  });
export type Reflection = z.infer<typeof Reflection>;
