import { EffortLevel, Rating, Reflection, RUN_ID } from '../model';
import { learningCategory as keywordCategory, reflectionId } from './reflection';

/**
 * PAI's files, line for line: `MEMORY/LEARNING/SIGNALS/ratings.jsonl` (PAI's RatingEntry)
 * and `MEMORY/LEARNING/REFLECTIONS/algorithm-reflections.jsonl` (PAI's LEARN-phase entry:
 * timestamp, effort_level, task_description, criteria_count, criteria_passed,
 * criteria_failed, prd_id, implied_sentiment, reflection_q1–q3, within_budget). What PAI has
 * no field for (run id, category, learning note, …) goes in extra snake_case fields, which
 * PAI's readers ignore. Reading is tolerant: a bad line is reported with its number and
 * skipped; ids come from the content, so reading the same line twice gives the same entity.
 */

export interface LineProblem {
  readonly line: number;
  readonly message: string;
}

export interface ParsedJsonl<T> {
  readonly entries: T[];
  readonly problems: LineProblem[];
}

/** FNV-1a, 32 bit, base36: a content fingerprint for ids (core has no crypto module). */
export function fingerprint(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36).padStart(7, '0');
}

export function ratingId(timestamp: string, sessionId: string, rating: number): string {
  return `rating-${fingerprint(`${timestamp}|${sessionId}|${rating}`)}`;
}

// ---------------------------------------------------------------- ratings

export function ratingToPai(r: Rating): Record<string, unknown> {
  return clean({
    timestamp: r.timestamp,
    rating: r.rating,
    session_id: r.sessionId,
    type: r.type,
    comment: r.comment,
    sentiment_summary: r.sentimentSummary,
    confidence: r.confidence,
    context: r.context,
    run_id: r.runId,
  });
}

export function ratingsToJsonl(ratings: readonly Rating[]): string {
  return ratings.map((r) => `${JSON.stringify(ratingToPai(r))}\n`).join('');
}

export function parseRatingsJsonl(text: string): ParsedJsonl<Rating> {
  return parseLines(text, (raw) => {
    const timestamp = isoTimestamp(raw.timestamp);
    const rating = raw.rating;
    if (typeof rating !== 'number' || !Number.isInteger(rating) || rating < 1 || rating > 10) throw new Error('"rating" must be a whole number from 1 to 10');
    const sessionId = str(raw.session_id) ?? str(raw.sessionId);
    if (!sessionId) throw new Error('"session_id" is missing');
    // Older PAI hooks write `source: "implicit"` instead of `type`.
    const type = raw.type === 'implicit' || raw.source === 'implicit' ? 'implicit' : raw.type === undefined || raw.type === 'explicit' ? 'explicit' : undefined;
    if (!type) throw new Error('"type" must be "explicit" or "implicit"');
    return Rating.parse(
      clean({
        id: ratingId(timestamp, sessionId, rating),
        timestamp,
        rating,
        sessionId,
        runId: str(raw.run_id),
        type,
        comment: str(raw.comment),
        sentimentSummary: str(raw.sentiment_summary),
        confidence: typeof raw.confidence === 'number' ? raw.confidence : undefined,
        context: str(raw.context),
      }),
    );
  });
}

// ---------------------------------------------------------------- reflections

export function reflectionToPai(r: Reflection): Record<string, unknown> {
  return clean({
    timestamp: r.timestamp,
    effort_level: r.effortLevel.charAt(0) + r.effortLevel.slice(1).toLowerCase(),
    task_description: r.request ?? '',
    criteria_count: r.criteriaCount,
    criteria_passed: r.criteriaPassed,
    criteria_failed: r.criteriaFailed,
    prd_id: r.prdId ?? r.prdPath ?? '',
    implied_sentiment: r.impliedSentiment ?? null,
    reflection_q1: r.q1Self,
    reflection_q2: r.q2Workflow,
    reflection_q3: r.q3System,
    within_budget: r.withinBudget,
    run_id: r.runId,
    category: r.category,
    elapsed_percent: r.elapsedPercent,
    artifact_type: r.artifactType,
    learning_note: r.learningNote,
    user_feedback: r.userFeedback,
    author: r.author,
    prd_path: r.prdPath,
    version: r.version,
  });
}

export function reflectionsToJsonl(reflections: readonly Reflection[]): string {
  return reflections.map((r) => `${JSON.stringify(reflectionToPai(r))}\n`).join('');
}

const EFFORT_ALIASES: Record<string, EffortLevel> = { TRIVIAL: 'INSTANT', QUICK: 'FAST', THOROUGH: 'EXTENDED', DETERMINED: 'DEEP' };

export function parseReflectionsJsonl(text: string, version: string): ParsedJsonl<Reflection> {
  return parseLines(text, (raw) => {
    const timestamp = isoTimestamp(raw.timestamp ?? raw.ts);
    const effortRaw = str(raw.effort_level) ?? str(raw.effort) ?? '';
    const effortText = effortRaw.toUpperCase();
    const effort = EffortLevel.safeParse(EFFORT_ALIASES[effortText] ?? effortText);
    if (!effort.success) throw new Error(`"effort_level" "${effortRaw || '(missing)'}" is not an effort level (Instant … Comprehensive)`);
    const q1 = str(raw.reflection_q1) ?? str(raw.q1_self) ?? str(raw.q1);
    const q2 = str(raw.reflection_q2) ?? str(raw.q2_workflow) ?? str(raw.q2) ?? '';
    const q3 = str(raw.reflection_q3) ?? str(raw.q3_system) ?? str(raw.q3) ?? '';
    if (!q1) throw new Error('"reflection_q1" is missing or empty');
    const runId = str(raw.run_id);
    const request = str(raw.task_description);
    const sentiment = typeof raw.implied_sentiment === 'number' ? Math.min(10, Math.max(1, Math.round(raw.implied_sentiment))) : undefined;
    const count = int(raw.criteria_count, 'criteria_count');
    const categoryText = str(raw.category);
    const text = `${q1} ${q2} ${q3}`;
    return Reflection.parse(
      clean({
        // One reflection per run of ours; PAI's entries are known by their time and first answer.
        id: runId && RUN_ID.test(runId) ? reflectionId(runId) : `refl-pai-${fingerprint(`${timestamp}|${q1}`)}`,
        runId: runId ?? `pai:${str(raw.prd_id) || fingerprint(`${timestamp}|${request ?? ''}`)}`,
        timestamp,
        effortLevel: effort.data,
        artifactType: str(raw.artifact_type),
        criteriaCount: count,
        criteriaPassed: int(raw.criteria_passed, 'criteria_passed'),
        criteriaFailed: int(raw.criteria_failed, 'criteria_failed'),
        // PAI leaves it out or null on some entries; without a record of going over, the run counts as within budget.
        withinBudget: typeof raw.within_budget === 'boolean' ? raw.within_budget : true,
        elapsedPercent: typeof raw.elapsed_percent === 'number' && raw.elapsed_percent >= 0 ? raw.elapsed_percent : 0,
        impliedSentiment: sentiment,
        userFeedback: str(raw.user_feedback),
        q1Self: q1,
        q2Workflow: q2 || '(not recorded)',
        q3System: q3 || '(not recorded)',
        category: categoryText === 'ALGORITHM' || categoryText === 'SYSTEM' ? categoryText : keywordCategory(text),
        author: raw.author === 'manager' || raw.author === 'facts' ? raw.author : 'imported',
        learningNote: str(raw.learning_note),
        request,
        prdId: str(raw.prd_id),
        prdPath: str(raw.prd_path),
        version: str(raw.version) ?? version,
      }),
    );
  });
}

// ---------------------------------------------------------------- helpers

function parseLines<T>(text: string, read: (raw: Record<string, unknown>) => T): ParsedJsonl<T> {
  const entries: T[] = [];
  const problems: LineProblem[] = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    const number = index + 1;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      problems.push({ line: number, message: 'not valid JSON' });
      return;
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      problems.push({ line: number, message: 'not a JSON object' });
      return;
    }
    try {
      entries.push(read(raw as Record<string, unknown>));
    } catch (error) {
      const issues = (error as { issues?: { path: PropertyKey[]; message: string }[] }).issues;
      problems.push({ line: number, message: issues ? issues.map((i) => `${i.path.join('.') || '(entry)'}: ${i.message}`).join('; ') : (error as Error).message });
    }
  });
  return { entries, problems };
}

function isoTimestamp(value: unknown): string {
  const date = typeof value === 'string' ? new Date(value) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new Error('"timestamp" is missing or not a date');
  return date.toISOString();
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : undefined;
}

function int(value: unknown, field: string): number {
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new Error(`"${field}" must be a whole number ≥ 0`);
  return value;
}

function clean(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
