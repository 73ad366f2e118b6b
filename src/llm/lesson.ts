import { z } from 'zod';

/**
 * A parameter or feature a server refused, as learned from its 400 (see adapt.ts). Its own
 * module, apart from the catalogue, so the store (which keeps lessons) loads neither the
 * catalogue nor its data on the paths that only verify (`gate`, `verify`, `mcp`).
 */
export const LESSON_PARAMS = ['temperature', 'top_p', 'tool_choice', 'tools', 'strict', 'max_tokens', 'max_completion_tokens', 'response_format', 'reasoning_effort'] as const;
export type LessonParam = (typeof LESSON_PARAMS)[number];

export const ModelLesson = z
  .object({
    /** The model name as sent to the server. */
    model: z.string().min(1),
    /** The provider id (a lesson of a local server is not one of OpenAI's). */
    providerId: z.string().min(1),
    param: z.enum(LESSON_PARAMS),
    /** The server's own words, first line, redacted. */
    message: z.string(),
    at: z.string(),
  })
  .strict();
export type ModelLesson = z.infer<typeof ModelLesson>;
