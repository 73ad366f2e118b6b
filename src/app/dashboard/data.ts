/**
 * The dashboard's figures, as one JSON document: what the editor's webview receives and what
 * `ideal-state dashboard` writes as data.json beside its page. Plain data (no classes, no
 * dates), so both ends read the same shape. Every string in it came from the store and is
 * shown as text, never as HTML.
 */
export const DASHBOARD_DATA_VERSION = 1;

/** The figures of a set of runs (a day, a PRD, the whole store). */
export interface RunFigures {
  runs: number;
  /** Runs in an end state (COMPLETE, BUDGET_EXHAUSTED, BLOCKED, CANCELLED, FAILED). */
  finished: number;
  complete: number;
  /** Runs by state, only the states that occur. */
  states: Record<string, number>;
  /** Criteria of the runs' latest criteria versions: how many pass, of how many. */
  criteriaPassed: number;
  criteriaTotal: number;
  /** Median wall time from start to COMPLETE over the COMPLETE runs, ms; absent when none. */
  medianCompleteMs?: number;
  inputTokens: number;
  outputTokens: number;
  usd: number;
}

export interface DayFigures extends RunFigures {
  /** YYYY-MM-DD (UTC). */
  day: string;
  ratings: number;
  averageRating?: number;
  gateBlocked: number;
  gateReleased: number;
}

export interface PrdFigures extends RunFigures {
  /** Workspace-relative path of the PRD, or "(no PRD)" for runs started from a request alone. */
  prd: string;
  lastState: string;
  lastAt: string;
  ratings: number;
  averageRating?: number;
  gatePassed: number;
  gateBlocked: number;
  gateReleased: number;
  tampered: number;
}

/** One run, as the table of recent runs shows it. */
export interface RunRow {
  id: string;
  request: string;
  prd?: string;
  state: string;
  createdAt: string;
  criteriaPassed: number;
  criteriaTotal: number;
  completeMs?: number;
  inputTokens: number;
  outputTokens: number;
  usd: number;
  rating?: number;
}

/** The gate's verdicts for one agent host. */
export interface HostFigures {
  host: string;
  stops: number;
  passed: number;
  blocked: number;
  /** Let go with criteria unmet. */
  released: number;
}

export interface TamperedEvent {
  at: string;
  host: string;
  prd: string;
  /** Criterion ids, the PRD's path, or inputs a check depends on. */
  what: string[];
}

export interface FailingCriterion {
  id: string;
  text: string;
  /** A PRD it belongs to (the latest run's). */
  prd?: string;
  /** Runs whose latest verdict on it was FAIL or PARTIAL. */
  failed: number;
  /** Runs that have a verdict on it. */
  verified: number;
}

export interface LoopSnapshot {
  iteration: number;
  at: string;
  passing: number;
  total: number;
  /** Passing artifacts gained (or lost) since the iteration before; the first iteration's own count. */
  delta: number;
}

export interface LoopFigures {
  id: string;
  /** The ISC template and glob. */
  title: string;
  state: string;
  updatedAt: string;
  passing: number;
  total: number;
  snapshots: LoopSnapshot[];
}

export interface DashboardData {
  version: typeof DASHBOARD_DATA_VERSION;
  generatedAt: string;
  /** Nothing recorded at all: the view says how to get started instead of empty charts. */
  empty: boolean;
  totals: RunFigures & { ratings: number; averageRating?: number; gateStops: number; tampered: number };
  /** Oldest first. */
  days: DayFigures[];
  /** Most runs first. */
  prds: PrdFigures[];
  /** Newest first. */
  recentRuns: RunRow[];
  hosts: HostFigures[];
  /** Newest first. */
  tampered: TamperedEvent[];
  failing: FailingCriterion[];
  /** Most recently updated first. */
  loops: LoopFigures[];
}
