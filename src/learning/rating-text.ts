/**
 * What a person typed when asked "How did this go?". PAI's rule for an explicit rating is
 * `^(10|[1-9])(?:\s*[-:]\s*|\s+)?(.*)$`; on its own that rule reads "11" as a 1 with the
 * comment "1" and "3 files changed" as a 3, so, like PAI's hook, a number followed by more
 * digits or by a counting word is not a rating. "8/10" is a rating of 8.
 */
export type RatingText =
  | { readonly kind: 'explicit'; readonly rating: number; readonly comment?: string }
  | { readonly kind: 'comment'; readonly comment: string }
  | { readonly kind: 'empty' };

/**
 * Why a comment alone stays a comment, for the rating forms' status line: a scripted demo is
 * selected (it reads no comments), or no model is chosen.
 */
export function noCommentReader(selected?: { readonly displayName: string; readonly demo?: string }): string {
  if (selected?.demo !== undefined) return `The selected model, ${selected.displayName}, is a scripted demo and reads no comments`;
  return 'No model is chosen';
}

export const PAI_RATING_RULE = /^(10|[1-9])(?:\s*[-:]\s*|\s+)?(.*)$/s;

/** Words after a number that make it a count, not a judgement ("3 files", "2 of them"). */
const COUNTING_WORDS =
  /^(?:items?|things?|steps?|files?|lines?|bugs?|issues?|errors?|warnings?|tests?|times?|seconds?|minutes?|hours?|days?|weeks?|months?|years?|percent|%|of|in|at|to|and|or|more|less|out(?!\s*of\s*10\b))\b/i;

export function parseRatingText(text: string): RatingText {
  const trimmed = text.trim();
  if (trimmed === '') return { kind: 'empty' };
  const outOfTen = /^(10|[1-9])\s*(?:\/|out\s+of)\s*10\b\s*[-:]?\s*(.*)$/is.exec(trimmed);
  if (outOfTen) return explicit(Number(outOfTen[1]), outOfTen[2]!);
  const match = PAI_RATING_RULE.exec(trimmed);
  if (!match) return { kind: 'comment', comment: trimmed };
  const rest = match[2]!;
  // "11", "100", "1.5", "3,000": the number goes on, so it is not a 1–10 rating.
  if (/^[0-9.,/]/.test(rest) && !/^[-:]/.test(trimmed.slice(match[1]!.length).trim())) return { kind: 'comment', comment: trimmed };
  if (COUNTING_WORDS.test(rest)) return { kind: 'comment', comment: trimmed };
  return explicit(Number(match[1]), rest);
}

function explicit(rating: number, rest: string): RatingText {
  const comment = rest.trim();
  return comment ? { kind: 'explicit', rating, comment } : { kind: 'explicit', rating };
}
