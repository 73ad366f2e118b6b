// Pure (no editor imports): the words of a run's progress, unit-tested in plain Node.
import type { RunState } from '../../model';
import type { RunResult } from '../../algorithm/engine-api';
import { verdictOf, type Verdict } from '../../model/verdict';
import { stateWords } from '../../model/run-states';
import type { RunProgress } from '../../app/window-run';

/** How often the notification and the status bar bring a going run's time up to date (between its steps). */
export const PROGRESS_TICK_MS = 1000;

/**
 * "EXECUTE 2/3 · 45%": where a run is, for the progress notification and the status bar;
 * while it waits for a person, "· waiting for approval 1 min 12 s" (or for the question it asked,
 * "waiting for your answer: keep learned criteria? 12 s") — time that is not in the 45 %.
 */
export function describeProgress(change: Pick<RunProgress, 'phase' | 'iteration' | 'maxIterations' | 'budget'>): string {
  const waiting = change.budget.waitingMs !== undefined ? ` · waiting for ${change.budget.waitingFor ?? 'approval'} ${describeWait(change.budget.waitingMs)}` : '';
  return `${change.phase} ${change.iteration}/${change.maxIterations ?? '∞'} · ${change.budget.percent}%${waiting}`;
}

/** 42 s, 2 min 30 s, 1 h 5 min. */
export function describeWait(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m >= 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
}

/** A run's state in words, for messages (never a raw code like BUDGET_EXHAUSTED). */
export function describeRunState(state: RunState): string {
  return stateWords(state);
}

/**
 * The end-of-run notification: its words and whether it is good news. Good news only when the
 * run is COMPLETE and the one rule holds (src/model/verdict.ts: every CRITICAL criterion PASSES).
 */
export function runEndMessage(result: Pick<RunResult, 'state' | 'criteria' | 'report' | 'reason'>): { text: string; good: boolean } {
  const outcomes = new Map((result.report?.results ?? []).map((r) => [r.criterionId, r.outcome]));
  const verdict = verdictOf(result.criteria.map((c) => ({ id: c.id, priority: c.priority, outcome: outcomes.get(c.id) })));
  const good = result.state === 'COMPLETE' && verdict.passed;
  const blocking = !good && verdict.blocking.length > 0 ? `; CRITICAL ${verdict.blocking.slice(0, 3).join(', ')}${verdict.blocking.length > 3 ? ` and ${verdict.blocking.length - 3} more` : ''} ${verdict.blocking.length === 1 ? 'does' : 'do'} not pass` : '';
  const reason = result.reason && result.state !== 'COMPLETE' ? `: ${result.reason}` : '';
  return { text: `Ideal State: run ${describeRunState(result.state)} — ${verdict.pass} of ${verdict.total} ${verdict.total === 1 ? 'criterion passes' : 'criteria pass'}${blocking}${reason}.`, good };
}

/** The end-of-loop notification: the loop's state in words, and how many artifacts pass. */
export function loopEndMessage(result: { state: string; passing: number; total: number }): string {
  return `Ideal State: loop ${stateWords(result.state)} — ${result.passing} of ${result.total} ${result.total === 1 ? 'artifact passes' : 'artifacts pass'}.`;
}

/** The status bar's verdict line for a going run: never "passing" while a CRITICAL criterion does not PASS. */
export function statusVerdictText(verdict: Verdict): string {
  const of = `${verdict.pass} of ${verdict.total} ${verdict.total === 1 ? 'criterion passes' : 'criteria pass'}`;
  if (verdict.total === 0) return 'no criteria yet';
  return verdict.passed ? `${of}: every CRITICAL criterion passes` : `${of}; not passing yet (${verdict.blocking.length} CRITICAL ${verdict.blocking.length === 1 ? 'does' : 'do'} not pass)`;
}
