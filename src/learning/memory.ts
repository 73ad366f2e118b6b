import { Criterion, type CriterionSource, type VerificationMethod } from '../model';
import type { Theme } from './mining';
import type { RunFacts } from './run-facts';
import { cosine, TfIdf } from './text-similarity';

/** Ratings under 6 count as low for memory, as PAI captures learnings for ratings under 6. */
export const LOW_RATED_BELOW = 6;
export const DEFAULT_MIN_SIMILARITY = 0.2;

export type Provenance =
  | {
      readonly kind: 'past-run';
      readonly runId: string;
      readonly request: string;
      readonly criterionId: string;
      readonly rating: number;
      readonly similarity: number;
      /** FAIL, PARTIAL, UNKNOWN, unverified, or added after the first criteria version. */
      readonly why: 'failed' | 'unproven' | 'added-later';
    }
  | { readonly kind: 'theme'; readonly themeId: string; readonly themeLabel: string; readonly frequency: number; readonly averageRating: number | undefined; readonly runId: string; readonly similarity: number };

/** A criterion offered to a new run's OBSERVE from memory; the user accepts or drops it. */
export interface LearnedCriterion {
  readonly text: string;
  readonly source: Extract<CriterionSource, 'INFERRED'>;
  readonly provenance: Provenance;
  /** A past run's anti-criterion is offered as one. */
  readonly anti?: boolean;
  /** The past run's verification method, when the offer is one of its criteria. */
  readonly verify?: VerificationMethod;
  /**
   * The person's answer when they were asked (in the editor, at OBSERVE); unasked offers are
   * kept. `unanswered`: asked, but the question was closed (Esc) without an answer, so the
   * stated default applies: kept.
   */
  readonly answer?: 'kept' | 'dropped' | 'unanswered';
}

/**
 * Asks the person which offered criteria to keep; resolves to the kept ones (undefined: not
 * answered, every offer stays as offered). Only offers that would become rows are asked about.
 */
export type ChooseLearned = (offers: readonly LearnedCriterion[], signal: AbortSignal) => Promise<readonly LearnedCriterion[] | undefined>;

/** Offers that become rows when kept: a past run's own criteria (a theme's advice stays advice). */
export function becomesRow(offer: LearnedCriterion): boolean {
  return offer.provenance.kind === 'past-run';
}

/** The offers with the person's answer: rows they kept or dropped; advice passes through. */
export async function answerOffers(offers: readonly LearnedCriterion[], choose: ChooseLearned | undefined, signal: AbortSignal): Promise<LearnedCriterion[]> {
  const asked = offers.filter(becomesRow);
  if (!choose || asked.length === 0) return [...offers];
  const kept = await choose(asked, signal);
  if (!kept) return offers.map((o) => (becomesRow(o) ? { ...o, answer: 'unanswered' as const } : o));
  const keep = new Set(kept);
  return offers.map((o) => (becomesRow(o) ? { ...o, answer: keep.has(o) ? ('kept' as const) : ('dropped' as const) } : o));
}

export interface MemoryOptions {
  readonly minSimilarity?: number;
  /** How many of the most similar past runs to learn from. */
  readonly maxRuns?: number;
  readonly limit?: number;
}

/**
 * For a new request: the past runs most like it (TF-IDF over their requests and criteria,
 * cosine similarity), and from the low-rated ones the criteria that failed, were never
 * proven (in a run that verified anything) or were missing at the start; then the suggested changes of themes those runs
 * belong to. Nearest run first; one offer per distinct text.
 */
export function learnedCriteria(request: string, pastRuns: readonly RunFacts[], themes: readonly Theme[] = [], options: MemoryOptions = {}): LearnedCriterion[] {
  if (pastRuns.length === 0) return [];
  const minSimilarity = options.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
  const tfidf = new TfIdf(pastRuns.map((r) => [r.request, ...r.criteria.map((c) => c.text)].join('\n')));
  const query = tfidf.vectorize(request);
  const similar = pastRuns
    .map((run, i) => ({ run, similarity: cosine(query, tfidf.vectors[i]!) }))
    .filter((s) => s.similarity >= minSimilarity)
    .sort((a, b) => b.similarity - a.similarity || b.run.finishedAt.localeCompare(a.run.finishedAt))
    .slice(0, options.maxRuns ?? 5);

  const offers: LearnedCriterion[] = [];
  const seen = new Set<string>();
  const offer = (text: string, provenance: Provenance, extra: Pick<LearnedCriterion, 'anti' | 'verify'> = {}) => {
    const key = text.toLowerCase().replace(/\W+/g, ' ').trim();
    if (!key || seen.has(key)) return;
    seen.add(key);
    offers.push({ text, source: 'INFERRED', provenance, ...extra });
  };
  for (const { run, similarity } of similar) {
    if (run.rating === undefined || run.rating >= LOW_RATED_BELOW) continue;
    // A run that ended before verifying anything (stopped at PLAN, say) proved nothing either
    // way: its unverified criteria are not lessons, only the ones it found missing are.
    const verified = run.criteria.some((c) => c.outcome !== undefined);
    for (const c of run.criteria) {
      const why = c.outcome === 'FAIL' ? 'failed' : c.outcome !== 'PASS' && verified ? 'unproven' : c.addedLater ? 'added-later' : undefined;
      if (why) offer(c.text, { kind: 'past-run', runId: run.runId, request: run.request, criterionId: c.id, rating: run.rating, similarity: round(similarity), why }, { ...(c.kind === 'anti-criterion' ? { anti: true } : {}), ...(c.verify ? { verify: c.verify } : {}) });
    }
  }
  for (const { run, similarity } of similar) {
    for (const theme of themes) {
      if (!theme.runIds.includes(run.runId)) continue;
      offer(theme.suggestedChange.replace(/^\[fact-based, no model\]\s*/, ''), {
        kind: 'theme',
        themeId: theme.id,
        themeLabel: theme.label,
        frequency: theme.frequency,
        averageRating: theme.averageRating,
        runId: run.runId,
        similarity: round(similarity),
      });
    }
  }
  return offers.slice(0, options.limit ?? 10);
}

/** Where an offer came from, in a sentence for the criterion's notes and the UI. */
export function describeProvenance(p: Provenance): string {
  if (p.kind === 'past-run') {
    const why = p.why === 'failed' ? 'failed' : p.why === 'unproven' ? 'was never proven' : 'was missing at the start';
    return `Learned from ${p.runId} (rated ${p.rating}/10, ${Math.round(p.similarity * 100)}% similar): ${p.criterionId} ${why} there.`;
  }
  return `Suggested by the theme "${p.themeLabel}" (${p.frequency} reflections${p.averageRating !== undefined ? `, average rating ${p.averageRating}` : ''}) of the similar run ${p.runId}.`;
}

/** The offer as an INFERRED criterion, its provenance in the notes. */
export function toCriterion(learned: LearnedCriterion, id: string, now: Date = new Date()): Criterion {
  const at = now.toISOString();
  return Criterion.parse({
    kind: 'criterion',
    id,
    text: learned.text,
    priority: 'IMPORTANT',
    source: learned.source,
    status: 'PENDING',
    createdAt: at,
    updatedAt: at,
    notes: describeProvenance(learned.provenance),
  });
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
