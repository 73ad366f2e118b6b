import type { LanguageModel } from '../llm/types';
import { EXIT_STATES, type AnyCriterion, type Rating, type Reflection, type Run, type RunEvent, type RunState, type VerificationReport } from '../model';
import { impliedRating } from './implied-rating';
import { learnedCriteria, type LearnedCriterion } from './memory';
import { mineThemes, type MiningOptions, type Theme } from './mining';
import { parseRatingsJsonl, parseReflectionsJsonl, ratingId, ratingsToJsonl, reflectionsToJsonl, type LineProblem } from './pai-jsonl';
import { parseRatingText } from './rating-text';
import { reflectOnRun, reflectsAt, type ReflectResult } from './reflection';
import { runFacts, type RunFacts } from './run-facts';
import { ratingFigures, type RatingFigures } from './stats';

type Param = string | number | null;
interface Table<T> {
  save(...entities: T[]): void;
  where(clause: string, params?: readonly Param[], orderBy?: string, limit?: number): T[];
  count(clause?: string, params?: readonly Param[]): number;
}

/** The part of the store learning reads and writes (the store satisfies it; tests may too). */
export interface LearningStore {
  readonly runs: { get(id: string): Run | undefined; list(states?: readonly RunState[]): Run[] };
  readonly criteria: { list(runId: string, version?: number): AnyCriterion[]; versions(runId: string): number[] };
  readonly reports: Table<VerificationReport>;
  readonly ratings: Table<Rating>;
  readonly reflections: Table<Reflection>;
  /** A comment kept without a rating is a user note among the run's events. */
  readonly events: Table<RunEvent>;
}

/** How a comment kept without a rating is recorded among the run's events. */
export const KEPT_COMMENT_PREFIX = 'comment kept without a rating: ';

/** A comment the person left on a run without a rating (none could be read from it). */
export interface KeptComment {
  readonly runId: string;
  readonly at: string;
  readonly comment: string;
}

export interface LearningOptions {
  readonly version: string;
  readonly now?: () => Date;
}

/** What came of "How did this go?". */
export interface RateResult {
  readonly rating?: Rating;
  /** Set when no rating was stored: the comment is kept on the run's reflection, and why. */
  readonly commentOnly?: string;
  readonly reflection?: Reflection;
  readonly reflectionFallback?: string;
}

export interface ImportResult {
  readonly added: number;
  /** Lines whose entry the store already holds (a re-import). */
  readonly alreadyThere: number;
  readonly problems: readonly LineProblem[];
}

/**
 * The LEARN phase over the store: rate a finished run, reflect on it, mine reflections,
 * offer memory to a new run, move ratings and reflections in and out in PAI's layout.
 * The engine calls `reflectAfterRun` when a run ends; the editor calls the rest.
 */
export class LearningService {
  private readonly now: () => Date;

  constructor(private readonly store: LearningStore, private readonly options: LearningOptions) {
    this.now = options.now ?? (() => new Date());
  }

  /** Finished runs, newest first. */
  finishedRuns(): Run[] {
    return this.store.runs.list(EXIT_STATES);
  }

  ratingOf(runId: string): Rating | undefined {
    return this.store.ratings.where('run_id = ?', [runId], 'timestamp DESC', 1)[0];
  }

  /**
   * The newest finished run nobody has answered: no rating, and no comment kept without one
   * (with no model to read a rating from a comment, asking again would only repeat it).
   */
  lastUnratedRun(): Run | undefined {
    return this.finishedRuns().find((run) => this.store.ratings.count('run_id = ?', [run.id]) === 0 && !this.keptComment(run.id));
  }

  /** The newest comment kept on a run without a rating, if any. */
  keptComment(runId: string): KeptComment | undefined {
    const event = this.store.events.where("run_id = ? AND kind = 'note'", [runId], 'seq DESC').find((e) => e.role === 'user' && e.message.startsWith(KEPT_COMMENT_PREFIX));
    return event ? { runId, at: event.at, comment: event.message.slice(KEPT_COMMENT_PREFIX.length) } : undefined;
  }

  /** Comments kept without a rating on the newest finished runs (`within` of them), newest first. */
  keptComments(within = 20): KeptComment[] {
    return this.finishedRuns()
      .slice(0, within)
      .map((run) => this.keptComment(run.id))
      .filter((c): c is KeptComment => c !== undefined)
      .sort((a, b) => b.at.localeCompare(a.at));
  }

  facts(runId: string): RunFacts | undefined {
    const run = this.store.runs.get(runId);
    if (!run) return undefined;
    const versions = this.store.criteria.versions(runId);
    const first = versions.length > 0 ? this.store.criteria.list(runId, versions[0]) : [];
    const rating = this.ratingOf(runId);
    const reflection = this.reflectionOf(runId);
    const comment = rating?.comment ?? this.keptComment(runId)?.comment ?? reflection?.userFeedback;
    return runFacts(run, this.store.criteria.list(runId), this.store.reports.where('run_id = ?', [runId], 'created_at'), first, {
      ...(rating ? { rating: rating.rating } : {}),
      ...(comment ? { comment } : {}),
    });
  }

  reflectionOf(runId: string): Reflection | undefined {
    return this.store.reflections.where('run_id = ?', [runId], 'timestamp DESC', 1)[0];
  }

  /**
   * Rates a finished run from what the person chose and typed: a chosen number wins;
   * otherwise a typed `8 - great` is explicit (PAI's rule), a bare comment gets an implied
   * rating from the model, and with no model (or an unsure reading) it stays a comment.
   * Then the run's reflection is (re)written with the rating. One rating per run: a rated
   * run is refused; a run with only a kept comment may still get its number.
   */
  async rateRun(runId: string, input: { readonly rating?: number; readonly text?: string }, model?: LanguageModel, signal?: AbortSignal): Promise<RateResult> {
    const run = this.store.runs.get(runId);
    if (!run) throw new Error(`There is no run ${runId} in this workspace's store.`);
    if (!EXIT_STATES.includes(run.state)) throw new Error(`Run ${runId} has not finished (it is ${run.state}); rate it when it ends.`);
    const already = this.ratingOf(runId);
    if (already) throw new Error(`Run ${runId} is rated already (${already.rating}/10); a run is rated once.`);
    const text = input.text?.trim() ?? '';
    const parsed = parseRatingText(text);
    const timestamp = this.now().toISOString();
    const context = `${run.effort} run: ${run.request}`.slice(0, 300);
    let rating: Rating | undefined;
    let commentOnly: string | undefined;
    const base = { timestamp, sessionId: runId, runId, context };
    if (input.rating !== undefined) {
      rating = { ...base, id: ratingId(timestamp, runId, input.rating), rating: input.rating, type: 'explicit', ...(text ? { comment: parsed.kind === 'explicit' && parsed.rating === input.rating ? (parsed.comment ?? text) : text } : {}) };
    } else if (parsed.kind === 'explicit') {
      rating = { ...base, id: ratingId(timestamp, runId, parsed.rating), rating: parsed.rating, type: 'explicit', ...(parsed.comment ? { comment: parsed.comment } : {}) };
    } else if (parsed.kind === 'comment') {
      const implied = await impliedRating(parsed.comment, context, model, signal);
      if (implied.kind === 'implied') {
        rating = { ...base, id: ratingId(timestamp, runId, implied.rating), rating: implied.rating, type: 'implicit', comment: parsed.comment, sentimentSummary: implied.summary, confidence: implied.confidence };
      } else commentOnly = implied.reason;
    } else {
      throw new Error('Choose a rating from 1 to 10, or write a comment.');
    }
    if (rating) this.store.ratings.save(rating);
    else if (commentOnly) this.keepComment(runId, parsed.kind === 'comment' ? parsed.comment : text, timestamp);
    const facts = this.facts(runId)!;
    const withComment: RunFacts = commentOnly ? { ...facts, comment: text } : facts;
    const reflected = reflectsAt(run.effort) ? await this.reflect(withComment, model, signal) : undefined;
    return {
      ...(rating ? { rating } : {}),
      ...(commentOnly ? { commentOnly } : {}),
      ...(reflected ? { reflection: reflected.reflection } : {}),
      ...(reflected?.fallbackReason ? { reflectionFallback: reflected.fallbackReason } : {}),
    };
  }

  /** The comment, stored with the run as the user's note so it is not lost (and not asked for again). */
  private keepComment(runId: string, comment: string, at: string): void {
    const last = this.store.events.where('run_id = ?', [runId], 'seq DESC', 1)[0];
    this.store.events.save({ runId, seq: (last?.seq ?? -1) + 1, at, kind: 'note', role: 'user', message: `${KEPT_COMMENT_PREFIX}${comment}`, inputTokens: 0, outputTokens: 0, costUsd: 0 });
  }

  /** For the engine when a run ends: Q1/Q2/Q3 for runs at STANDARD or above; undefined below. */
  async reflectAfterRun(runId: string, model?: LanguageModel, signal?: AbortSignal): Promise<ReflectResult | undefined> {
    const facts = this.facts(runId);
    if (!facts || !reflectsAt(facts.effort)) return undefined;
    return this.reflect(facts, model, signal);
  }

  private async reflect(facts: RunFacts, model: LanguageModel | undefined, signal: AbortSignal | undefined): Promise<ReflectResult> {
    const previous = this.reflectionOf(facts.runId);
    const result = await reflectOnRun(facts, { ...(model ? { model } : {}), now: this.now(), version: this.options.version, ...(signal ? { signal } : {}) });
    const reflection = previous?.theme ? { ...result.reflection, theme: previous.theme } : result.reflection;
    this.store.reflections.save(reflection);
    return { ...result, reflection };
  }

  /** Every rating, oldest first. */
  ratings(): Rating[] {
    return this.store.ratings.where('', [], 'timestamp, id');
  }

  /** Count, rolling average of the last 10 and trend, reading only the last 10 rows. */
  figures(): RatingFigures {
    const recent = this.store.ratings.where('', [], 'timestamp DESC, id DESC', 10).reverse();
    return ratingFigures(
      recent.map((r) => r.rating),
      this.store.ratings.count(),
    );
  }

  reflections(): Reflection[] {
    return this.store.reflections.where('', [], 'timestamp DESC, id DESC');
  }

  /** Clusters every reflection into themes and records each reflection's theme. */
  mine(options: MiningOptions = {}): Theme[] {
    const reflections = this.reflections();
    const themes = mineThemes(reflections, options);
    const byId = new Map(reflections.map((r) => [r.id, r]));
    const changed: Reflection[] = [];
    for (const theme of themes) {
      for (const id of theme.reflectionIds) {
        const r = byId.get(id)!;
        if (r.theme !== theme.label) changed.push({ ...r, theme: theme.label });
      }
    }
    if (changed.length > 0) this.store.reflections.save(...changed);
    return themes;
  }

  /** Criteria learned from similar past runs and their themes, for a new request's OBSERVE. */
  memoryFor(request: string, themes: readonly Theme[] = mineThemes(this.reflections())): LearnedCriterion[] {
    const past = this.finishedRuns()
      .map((run) => this.facts(run.id))
      .filter((f): f is RunFacts => f !== undefined);
    return learnedCriteria(request, past, themes);
  }

  importRatings(text: string): ImportResult {
    const { entries, problems } = parseRatingsJsonl(text);
    return { ...this.addNew(this.store.ratings, entries), problems };
  }

  importReflections(text: string): ImportResult {
    const { entries, problems } = parseReflectionsJsonl(text, this.options.version);
    return { ...this.addNew(this.store.reflections, entries), problems };
  }

  exportRatings(): string {
    return ratingsToJsonl(this.ratings());
  }

  exportReflections(): string {
    return reflectionsToJsonl([...this.reflections()].reverse());
  }

  private addNew<T extends { id: string }>(table: Table<T>, entries: readonly T[]): { added: number; alreadyThere: number } {
    const fresh = new Map<string, T>();
    let alreadyThere = 0;
    for (const e of entries) {
      if (fresh.has(e.id) || table.count('id = ?', [e.id]) > 0) alreadyThere++;
      else fresh.set(e.id, e);
    }
    if (fresh.size > 0) table.save(...fresh.values());
    return { added: fresh.size, alreadyThere };
  }
}
