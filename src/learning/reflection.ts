import { z } from 'zod';
import { generateObject } from '../llm/structured';
import type { LanguageModel } from '../llm/types';
import { describeError, isCancellation } from '../model/errors';
import { EFFORT_LEVELS, LearningCategory, Reflection, type EffortLevel, type FailureLabel } from '../model';
import { elapsedPercent, unmetCriteria, withinBudget, type CriterionFact, type RunFacts } from './run-facts';

/** Reflections are written after runs at STANDARD or above (PAI: Standard+ effort). */
export function reflectsAt(effort: EffortLevel): boolean {
  return EFFORT_LEVELS.indexOf(effort) >= EFFORT_LEVELS.indexOf('STANDARD');
}

/** A rating at or below this writes a learning note naming what failed or was missing. */
export const LOW_RATING = 4;

/** Seed 004's keyword rule: more algorithm words than system words makes it ALGORITHM. */
export function learningCategory(content: string, context = ''): LearningCategory {
  const combined = `${content} ${context}`.toLowerCase();
  const algorithm = ['process', 'approach', 'method', 'workflow', 'phase', 'observe', 'think', 'plan', 'build', 'execute', 'verify', 'learn', 'isc', 'ideal state', 'criteria', 'iteration'];
  const system = ['code', 'implementation', 'bug', 'error', 'fix', 'feature', 'api', 'database', 'performance', 'security', 'test'];
  const a = algorithm.filter((k) => combined.includes(k)).length;
  const s = system.filter((k) => combined.includes(k)).length;
  return a > s ? 'ALGORITHM' : 'SYSTEM';
}

/** For a low-rated run: which criteria failed and which were missing or never proven. */
export function learningNote(facts: RunFacts): string | undefined {
  if (facts.rating === undefined || facts.rating > LOW_RATING) return undefined;
  const { failed, unproven } = unmetCriteria(facts);
  const added = facts.criteria.filter((c) => c.addedLater);
  const parts = [`Rated ${facts.rating}/10${facts.comment ? ` ("${facts.comment}")` : ''}.`];
  if (failed.length > 0) parts.push(`Failed: ${failed.map(describe).join('; ')}.`);
  if (unproven.length > 0) parts.push(`Never proven: ${unproven.map(describe).join('; ')}.`);
  if (added.length > 0) parts.push(`Missing at the start (added later): ${added.map(describe).join('; ')}.`);
  if (failed.length + unproven.length + added.length === 0) parts.push('Every criterion passed, so the criteria missed what the user wanted: the next similar request needs criteria for it.');
  return parts.join(' ');
}

function describe(c: CriterionFact): string {
  return `${c.id} "${c.text}"${c.failureLabel ? ` [${c.failureLabel}]` : c.outcome ? ` [${c.outcome}]` : ' [unverified]'}`;
}

const ManagerAnswers = z
  .object({
    q1Self: z.string().min(1).describe('What would I do differently next time? One or two sentences about the algorithm, not the task subject.'),
    q2Workflow: z.string().min(1).describe('What would a smarter workflow (the phases OBSERVE…LEARN) have done?'),
    q3System: z.string().min(1).describe('What would a smarter system (tools, verifiers, models, memory) have done?'),
    category: LearningCategory.describe('ALGORITHM when the lesson is about the process, SYSTEM when about code, tools or infrastructure'),
  })
  .strict();

export interface ReflectOptions {
  /** The manager's model; without one the reflection is fact-based and labelled so. */
  readonly model?: LanguageModel;
  readonly now?: Date;
  readonly version: string;
  readonly signal?: AbortSignal;
}

export interface ReflectResult {
  readonly reflection: Reflection;
  /** Why a fact-based reflection was written instead of the manager's, when that happened. */
  readonly fallbackReason?: string;
}

export function reflectionId(runId: string): string {
  return `refl-${runId}`;
}

/**
 * Q1/Q2/Q3 for a finished run. With a model, the manager answers from the run's facts
 * (structured output). Without one, or when the model fails, the answers are derived from
 * the facts alone and marked `author: 'facts'` — the reader sees they are not a model's.
 * Cancellation is passed on, never turned into a fallback.
 */
export async function reflectOnRun(facts: RunFacts, options: ReflectOptions): Promise<ReflectResult> {
  let fallbackReason: string | undefined = 'no model is available for the manager role';
  if (options.model) {
    try {
      const { value } = await generateObject(options.model, {
        name: 'reflection',
        description: 'The three-question reflection after a run',
        schema: ManagerAnswers,
        messages: [
          { role: 'system', content: 'You are the manager of an Ideal State run looking back at it. Answer from the facts given; be specific about criteria, phases and budget. Focus on how the run was done, not on the task subject.' },
          { role: 'user', content: factsPrompt(facts) },
        ],
        ...(options.signal ? { signal: options.signal } : {}),
      });
      return { reflection: build(facts, value, 'manager', options) };
    } catch (error) {
      if (isCancellation(error) || options.signal?.aborted) throw error;
      fallbackReason = `the manager model failed: ${describeError(error)}`;
    }
  }
  const answers = factAnswers(facts);
  return { reflection: build(facts, { ...answers, category: learningCategory(`${answers.q1Self} ${answers.q2Workflow} ${answers.q3System}`) }, 'facts', options), fallbackReason };
}

function build(facts: RunFacts, answers: z.infer<typeof ManagerAnswers>, author: 'manager' | 'facts', options: ReflectOptions): Reflection {
  const { failed } = unmetCriteria(facts);
  const passed = facts.criteria.filter((c) => c.outcome === 'PASS').length;
  const note = learningNote(facts);
  return Reflection.parse({
    id: reflectionId(facts.runId),
    runId: facts.runId,
    timestamp: (options.now ?? new Date()).toISOString(),
    effortLevel: facts.effort,
    ...(facts.artifactType ? { artifactType: facts.artifactType } : {}),
    criteriaCount: facts.criteria.length,
    criteriaPassed: passed,
    criteriaFailed: failed.length,
    withinBudget: withinBudget(facts),
    elapsedPercent: elapsedPercent(facts),
    ...(facts.rating !== undefined ? { impliedSentiment: facts.rating } : {}),
    ...(facts.comment ? { userFeedback: facts.comment } : {}),
    q1Self: answers.q1Self,
    q2Workflow: answers.q2Workflow,
    q3System: answers.q3System,
    category: answers.category,
    author,
    ...(note ? { learningNote: note } : {}),
    request: facts.request,
    ...(facts.prdPath ? { prdPath: facts.prdPath } : {}),
    version: options.version,
  });
}

export function factsPrompt(facts: RunFacts): string {
  const lines = [
    `Request: ${facts.request}`,
    `Effort level: ${facts.effort}; end state: ${facts.state}; budget used: ${elapsedPercent(facts)}% of ${facts.budgetSeconds} s`,
    `Criteria (${facts.criteria.length}):`,
    ...facts.criteria.map((c) => `- ${c.id} ${c.outcome ?? 'UNVERIFIED'}${c.failureLabel ? ` ${c.failureLabel}` : ''}${c.addedLater ? ' (added after the first version)' : ''}: ${c.text}`),
    facts.rating !== undefined ? `User rating: ${facts.rating}/10` : 'User rating: none yet',
  ];
  if (facts.comment) lines.push(`User comment: ${facts.comment}`);
  return lines.join('\n');
}

const LABEL_ADVICE: Record<FailureLabel, string> = {
  REQUIREMENT_COVERAGE: 'check in THINK that every part of the request has a criterion',
  CONSTRAINT_VIOLATION: 'extract constraints in OBSERVE and turn each into an anti-criterion',
  INTERNAL_INCONSISTENCY: 'review the candidate against itself before VERIFY',
  UNSUPPORTED_CLAIM: 'attach evidence to every claim before VERIFY',
  AMBIGUITY: 'ask the user to settle the ambiguous criteria in THINK',
  SCOPE_ERROR: 'bound each packet to its criteria in PLAN',
  OVERCONFIDENCE: 'verify instead of asserting: make each verify method concrete in BUILD',
  EXECUTION_ERROR: 'retry the failed execution step before re-planning',
};

/** Answers derived from the facts alone, each said to be so. */
function factAnswers(facts: RunFacts): { q1Self: string; q2Workflow: string; q3System: string } {
  const prefix = '[fact-based, no model]';
  const { failed, unproven } = unmetCriteria(facts);
  const over = !withinBudget(facts);
  const q1: string[] = [];
  if (failed.length > 0) q1.push(`${failed.length} of ${facts.criteria.length} ${facts.criteria.length === 1 ? 'criterion' : 'criteria'} failed (${failed.map((c) => c.id).join(', ')}); I would settle them before building.`);
  if (unproven.length > 0) q1.push(`${unproven.length} ${unproven.length === 1 ? 'criterion was' : 'criteria were'} never proven (${unproven.map((c) => c.id).join(', ')}); I would make their verification concrete.`);
  if (over) q1.push(`The run used ${elapsedPercent(facts)}% of its ${facts.effort} budget; I would plan fewer, smaller packets.`);
  if (facts.rating !== undefined && facts.rating <= LOW_RATING) q1.push(`The user rated it ${facts.rating}/10, so the criteria did not capture what mattered to them.`);
  if (q1.length === 0) q1.push(`${facts.criteria.length === 1 ? 'The one criterion' : `All ${facts.criteria.length} criteria`} passed within budget; the facts show nothing to change.`);
  const labels = [...new Set(failed.map((c) => c.failureLabel).filter((l): l is FailureLabel => l !== undefined))];
  const q2 = labels.map((l) => LABEL_ADVICE[l]);
  if (unproven.length > 0) q2.push('make every verify method runnable in BUILD so VERIFY proves each criterion');
  if (over) q2.push('compress earlier when the budget passes 100% and pick a smaller effort level for requests like this');
  if (q2.length === 0) q2.push('keep the same phases: they held for this run');
  const q3: string[] = [];
  if (facts.rating !== undefined && facts.rating <= LOW_RATING) q3.push('offer the criteria this run missed to the next similar request in OBSERVE');
  if (unproven.length > 0) q3.push('have a verifier for every criterion type used here');
  if (q3.length === 0) q3.push('reuse this run\'s criteria as a template for similar requests');
  return { q1Self: `${prefix} ${q1.join(' ')}`, q2Workflow: `${prefix} A smarter workflow would ${q2.join('; ')}.`, q3System: `${prefix} A smarter system would ${q3.join('; ')}.` };
}
