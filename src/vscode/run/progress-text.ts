// Pure (no editor imports): the words of a run's progress, unit-tested in plain Node.
import type { RunChange } from './run-service';

/** How often the notification and the status bar bring a going run's time up to date (between its steps). */
export const PROGRESS_TICK_MS = 1000;

/**
 * "EXECUTE 2/3 · 45%": where a run is, for the progress notification and the status bar;
 * while it waits for a person, "· waiting for approval 1 min 12 s" (or for the question it asked,
 * "waiting for your answer: keep learned criteria? 12 s") — time that is not in the 45 %.
 */
export function describeProgress(change: Pick<RunChange, 'phase' | 'iteration' | 'maxIterations' | 'budget'>): string {
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
