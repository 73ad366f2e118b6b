import type { RunState } from '../../model';
import { stateWords } from '../../model/run-states';
import { usageLine, type RunUsage } from '../../model/run-usage';

/** The view's groups, in order, and the states each holds (a run with pending approvals goes under "Needs approval" whatever its state). */
export const RUN_GROUPS: readonly { id: string; label: string; icon: string; states: readonly RunState[] }[] = [
  { id: 'running', label: 'Running', icon: 'sync', states: ['RUNNING', 'PENDING'] },
  { id: 'approval', label: 'Needs approval', icon: 'bell-dot', states: ['NEEDS_APPROVAL'] },
  { id: 'finished', label: 'Finished', icon: 'pass', states: ['COMPLETE', 'BUDGET_EXHAUSTED', 'BLOCKED', 'CANCELLED'] },
  { id: 'failed', label: 'Failed', icon: 'error', states: ['FAILED'] },
];

export type RunsNode =
  | { kind: 'group'; group: (typeof RUN_GROUPS)[number]; runs: RunSummary[]; loops: LoopSummary[] }
  | { kind: 'loop'; loop: LoopSummary; runs: RunSummary[] }
  | { kind: 'run'; run: RunSummary };

/** A loop as the Runs view shows it: one node holding its artifacts' sub-runs. */
export interface LoopSummary {
  id: string;
  /** "docs.page over docs/**\/*.md". */
  title: string;
  state: string;
  passing: number;
  total: number;
  /** Every sub-run of the loop's artifacts. */
  runIds: readonly string[];
  canCancel: boolean;
  canResume: boolean;
}


export interface RunSummary {
  id: string;
  request: string;
  effort: string;
  state: RunState;
  passed: number;
  total: number;
  /** The one rule (src/model/verdict.ts): every CRITICAL criterion PASSES. */
  passing: boolean;
  /** The time the run worked: its budget's measure, the figure its status bar and ISC table give. */
  durationMs: number;
  /** The time it waited for a person (approvals, a question), not in `durationMs`. */
  waitedMs?: number;
  createdAt: string;
  prdPath?: string;
  canCancel: boolean;
  canResume: boolean;
  /** Edits and commands of the run waiting for a person in this window. */
  pendingApprovals: number;
  /**
   * Not a run of the Algorithm but a record the store keeps for a PRD: a
   * verification (Verify Criteria, `ideal-state verify`) or a PRD saved outside a run. It never
   * ran a step, so it is finished, shown with its outcome, and never resumed.
   */
  record?: 'verification' | 'prd';
  /** What its model calls spent (tokens and dollars, per phase); absent for a run that called none. */
  spent?: RunUsage;
}

/**
 * The run's spending as the view shows it: dollars in the description, and in the tooltip the
 * tokens (fresh, cached, written, output) and dollars of the run and of each phase.
 */
export function spendWords(spent: RunUsage | undefined): { short: string; lines: string[] } | undefined {
  if (!spent || spent.fresh + spent.cached + spent.written + spent.output === 0) return undefined;
  const phases = Object.entries(spent.phases).filter(([, u]) => u && u.fresh + u.cached + u.written + u.output > 0);
  // No dollars in the description for a run that cost nothing (a local or scripted model) or whose
  // model has no known price: the tooltip's line still gives its tokens.
  return { short: spent.usd > 0 ? `$${spent.usd.toFixed(spent.usd >= 1 ? 2 : 4)}` : '', lines: [`spent ${usageLine(spent)}`, ...phases.map(([phase, u]) => `  ${phase}: ${usageLine(u!)}`)] };
}

/** What a stored run is: a run of the Algorithm (it committed a step) or a record of a PRD. */
export function recordKind(run: { readonly state: RunState }, facts: { readonly steps: number; readonly reports: number }): RunSummary['record'] {
  if (facts.steps > 0 || run.state !== 'PENDING') return undefined;
  return facts.reports > 0 ? 'verification' : 'prd';
}

/** The group a run shows under: waiting approvals first, then its state. */
export function groupOf(run: Pick<RunSummary, 'state' | 'pendingApprovals' | 'record'>): (typeof RUN_GROUPS)[number]['id'] | undefined {
  if (run.pendingApprovals > 0) return 'approval';
  if (run.record) return 'finished';
  return RUN_GROUPS.find((g) => g.states.includes(run.state))?.id;
}

/**
 * The view's top level: a group per state that holds something, each with its loops (their
 * sub-runs under them, not in the groups) and then the runs of no loop.
 */
export function arrangeRuns(runs: readonly RunSummary[], loops: readonly LoopSummary[]): RunsNode[] {
  const inLoop = new Set(loops.flatMap((l) => l.runIds));
  const loose = runs.filter((r) => !inLoop.has(r.id));
  return RUN_GROUPS.map((group) => ({
    kind: 'group' as const,
    group,
    loops: loops.filter((l) => loopGroupOf(l.state) === group.id),
    runs: loose.filter((r) => groupOf(r) === group.id),
  })).filter((g) => g.runs.length + g.loops.length > 0);
}

function loopGroupOf(state: string): (typeof RUN_GROUPS)[number]['id'] {
  return RUN_GROUPS.find((g) => (g.states as readonly string[]).includes(state))?.id ?? 'finished';
}

/** A loop's children: its sub-runs, newest first. */
export function loopChildren(loop: LoopSummary, runs: readonly RunSummary[]): RunSummary[] {
  const ids = new Set(loop.runIds);
  return runs.filter((r) => ids.has(r.id)).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

/** How a run shows in the Runs view: its icon and its colour. Green only for a COMPLETE run whose verdict passes (src/model/verdict.ts). */
export function runLook(run: Pick<RunSummary, 'state' | 'passing' | 'record'>): { icon: string; tone?: 'passed' | 'failed' | 'warning' } {
  if (run.record === 'verification') return run.passing ? { icon: 'pass-filled', tone: 'passed' } : { icon: 'warning', tone: 'warning' };
  if (run.record === 'prd') return { icon: 'file-text' };
  switch (run.state) {
    case 'RUNNING':
      return { icon: 'sync~spin' };
    case 'PENDING':
      return { icon: 'circle-large-outline' };
    case 'NEEDS_APPROVAL':
      return { icon: 'bell-dot', tone: 'warning' };
    case 'COMPLETE':
      return run.passing ? { icon: 'pass-filled', tone: 'passed' } : { icon: 'warning', tone: 'warning' };
    case 'BUDGET_EXHAUSTED':
      return { icon: 'watch', tone: 'warning' };
    case 'BLOCKED':
      return { icon: 'debug-pause', tone: 'warning' };
    case 'CANCELLED':
      return { icon: 'circle-slash' };
    case 'FAILED':
      return { icon: 'error', tone: 'failed' };
  }
}

/** The words a record shows in place of a run's state: "verification: 3 of 5 pass", "PRD: not verified yet". */
export function recordWords(run: Pick<RunSummary, 'record' | 'passed' | 'total' | 'passing'>): string | undefined {
  if (run.record === 'verification') return `verification: ${run.passed} of ${run.total} pass${run.passing ? '' : ' — not passing'}`;
  if (run.record === 'prd') return 'PRD: not verified yet';
  return undefined;
}

/**
 * A run's time in the Runs view: the time it worked, as its budget counts it ("16 s of 2 min"),
 * and apart from it the time it waited for a person. The wall time from start to end holds the
 * waits, so a 16-second run approved after a coffee read "2 min" beside its own "16 s".
 */
export function runTimes(run: { readonly elapsedMs: number; readonly waitedMs?: number | undefined; readonly startedAt?: string | undefined; readonly finishedAt?: string | undefined }): { workedMs: number; waitedMs: number } {
  const waitedMs = run.waitedMs ?? 0;
  if (run.elapsedMs > 0 || !run.startedAt || !run.finishedAt) return { workedMs: run.elapsedMs, waitedMs };
  // A run that never recorded its working time: its wall time without its waits.
  return { workedMs: Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt) - waitedMs), waitedMs };
}

/** "16 s", "1 min 40 s", "2 min", "1 h 5 min": whole seconds, never a minute for a run of seconds. */
export function formatDuration(ms: number): string {
  const s = Math.round(Math.max(0, ms) / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m >= 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
}

/** The Runs view's time of a run: "16 s", or "16 s + 1 min 44 s waiting for you" in its tooltip. */
export function durationWords(run: Pick<RunSummary, 'durationMs' | 'waitedMs'>, long = false): string {
  const worked = formatDuration(run.durationMs);
  if (!long || !run.waitedMs || run.waitedMs < 1000) return worked;
  return `${worked} working + ${formatDuration(run.waitedMs)} waiting for you (not counted against the budget)`;
}

/** A loop's line in the Runs view: its state in words and the sub-runs it holds ("cancelled · 1 sub-run"). */
export function loopWords(loop: Pick<LoopSummary, 'state' | 'passing' | 'total'>, subRuns: number): { description: string; tooltip: string } {
  const state = stateWords(loop.state);
  return { description: `${state} · ${subRuns} sub-run${subRuns === 1 ? '' : 's'}`, tooltip: `${loop.passing} of ${loop.total} artifact${loop.total === 1 ? ' passes' : 's pass'} · ${state}` };
}
