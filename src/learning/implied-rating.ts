import { z } from 'zod';
import { generateObject } from '../llm/structured';
import type { LanguageModel } from '../llm/types';

/** Below this confidence a sentiment reading is ignored (PAI's implicit-rating rule). */
export const MIN_CONFIDENCE = 0.5;

const SentimentReading = z
  .object({
    rating: z.number().int().min(1).max(10).describe('How satisfied the comment sounds, 1 (very unhappy) to 10 (delighted)'),
    confidence: z.number().min(0).max(1).describe('How sure you are that the comment judges the result at all, 0–1'),
    summary: z.string().min(1).describe('One short sentence: what the user feels about the result'),
  })
  .strict();
export type SentimentReading = z.infer<typeof SentimentReading>;

export type ImpliedRating =
  | { readonly kind: 'implied'; readonly rating: number; readonly confidence: number; readonly summary: string }
  /** Kept as a comment only; `reason` says why no rating was read from it. */
  | { readonly kind: 'comment-only'; readonly reason: string };

/**
 * A rating read from a comment that has no number, by the model's sentiment reading.
 * With no model, or a reading under 0.5 confidence, the comment stays a comment.
 */
export async function impliedRating(comment: string, context: string, model: LanguageModel | undefined, signal?: AbortSignal): Promise<ImpliedRating> {
  if (!model) return { kind: 'comment-only', reason: 'no model to read a rating from it' };
  const { value } = await generateObject(model, {
    name: 'sentiment',
    description: "The user's satisfaction with a finished run, read from their comment",
    schema: SentimentReading,
    messages: [
      { role: 'system', content: 'Read how satisfied the user is with the result from their comment. Judge only their feeling about the result.' },
      { role: 'user', content: `What was done: ${context}\nUser comment: ${comment}` },
    ],
    ...(signal ? { signal } : {}),
  });
  if (value.confidence < MIN_CONFIDENCE) return { kind: 'comment-only', reason: `the sentiment reading was too unsure (confidence ${value.confidence.toFixed(2)} < ${MIN_CONFIDENCE})` };
  return { kind: 'implied', rating: value.rating, confidence: value.confidence, summary: value.summary };
}
