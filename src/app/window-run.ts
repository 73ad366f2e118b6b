import type { WaitingTime } from '../algorithm/budget-tracker';
import type { StepCommit } from '../algorithm/ports';
import type { AnyCriterion, EffortLevel, Outcome, Phase, Run, RunState, VerificationReport } from '../model';
import type { LiveRun, RunSessions } from './run-sessions';

/** One criterion as the status bar and the progress notification see it: enough for a table row. */
export interface RunCriterionRow {
  readonly id: string;
  readonly text: string;
  readonly anti: boolean;
  readonly priority: string;
  readonly status: string;
  /** The latest verification outcome, once VERIFY has run. */
  readonly outcome?: Outcome;
  readonly evidence?: string;
}

/** A run going in this window as of now: its last commit, with the budget's clock moved on to this moment. */
export interface RunProgress {
  readonly runId: string;
  readonly request: string;
  readonly effort: EffortLevel;
  readonly state: RunState;
  readonly phase: Phase;
  readonly iteration: number;
  /** null: until the budget runs out (COMPREHENSIVE). */
  readonly maxIterations: number | null;
  readonly criteria: readonly RunCriterionRow[];
  /**
   * Time against the budget; waiting for a person (a pending approval) is not in it: `waitingMs`
   * while the run waits now, `waitedMs` for every wait so far.
   */
  readonly budget: { readonly seconds: number; readonly elapsedMs: number; readonly percent: number; readonly waitedMs: number; readonly waitingMs?: number; readonly waitingFor?: string };
  /** The manager's model as routed for this run, e.g. "scripted: demo-run". */
  readonly model: string;
  readonly prdPath?: string;
}

/** The run as its last durable commit left it (and the last report it carried). */
interface Seen {
  readonly run: Run;
  readonly criteria: readonly AnyCriterion[];
  readonly report?: VerificationReport;
}

export interface WindowRunOptions {
  /** The level's iteration limit; null: until the budget runs out. */
  readonly maxIterations: number | null;
  readonly model: string;
  /** A run this window goes on with (Resume Run), as its row and its last report left it. */
  readonly resumed?: Seen;
  /** The first commit of a run this window starts: its id is known from here. */
  readonly onStarted?: (runId: string) => void;
  readonly now?: () => number;
}

/**
 * A run the editor's run service starts or resumes, as its commits leave it. Each commit is
 * said once, as its session's 'step' delta, to every view; what the status bar and the
 * progress notification show (rows with outcomes, the budget as of now) is worked out from
 * the last one when they ask, so nothing is announced a second time.
 */
export class WindowRun {
  /** Known from the first commit (a resumed run's from the start). */
  runId: string | undefined;
  /** The run's waits for a person in this window (its ApprovalPolicy's). */
  waiting: WaitingTime | undefined;
  private seen: Seen | undefined;
  /** Whether the run's id was told to whoever started it: at the first commit, a resumed run's too. */
  private told = false;
  private readonly now: () => number;
  private readonly startedAt: number;
  private baseElapsedMs: number;
  /** What the run had waited for a person before this window went on with it. */
  private readonly baseWaitedMs: number;
  private rebased = false;

  constructor(
    private readonly sessions: RunSessions,
    private readonly live: LiveRun,
    private readonly o: WindowRunOptions,
  ) {
    this.now = o.now ?? Date.now;
    this.startedAt = this.now();
    this.baseElapsedMs = o.resumed?.run.elapsedMs ?? 0;
    this.baseWaitedMs = o.resumed?.run.waitedMs ?? 0;
    this.runId = o.resumed?.run.id;
    this.seen = o.resumed;
  }

  /** The engine's commit port: the run's session begins at its first commit, and every commit is told once. */
  commit(commit: StepCommit): void {
    const runId = commit.run.id;
    if (!this.sessions.isLive(runId)) this.sessions.begin(runId, this.live);
    // A resumed run's id is known from the start, but whoever started it (the progress
    // notification, whose Cancel names the run) learns it here, as a new run's.
    if (!this.told) {
      this.told = true;
      this.runId = runId;
      this.o.onStarted?.(runId);
    }
    // The engine committed the resume: the row's elapsed time is the run's until now.
    if (!this.rebased) {
      this.rebased = true;
      if (this.o.resumed) this.baseElapsedMs = commit.run.elapsedMs;
    }
    const report = commit.report ?? this.seen?.report;
    this.seen = { run: commit.run, criteria: commit.criteria ?? this.seen?.criteria ?? [], ...(report ? { report } : {}) };
    this.sessions.step(commit);
  }

  /** The run stopped in this window (`state` is where): its session ends, which the views are told once. */
  end(state: RunState): void {
    if (this.runId) this.sessions.end(this.runId, state);
  }

  /** The run as its last commit left it, its budget as of now (waits for a person left out, as the engine's BudgetTracker does). */
  progress(): RunProgress | undefined {
    const seen = this.seen;
    // A resumed run shows once its engine has committed the resume.
    if (!seen || !this.rebased) return undefined;
    const run = seen.run;
    const results = new Map((seen.report?.results ?? []).map((r) => [r.criterionId, r]));
    const criteria = seen.criteria.map((c): RunCriterionRow => {
      const r = results.get(c.id);
      return { id: c.id, text: c.text, anti: c.kind === 'anti-criterion', priority: c.priority, status: c.status, ...(r ? { outcome: r.outcome, evidence: r.evidence } : {}) };
    });
    const waitedHereMs = this.waiting?.waitedMs() ?? 0;
    const waitingMs = this.waiting?.waitingMs();
    const waitingFor = this.waiting?.waitingFor();
    const elapsedMs = this.baseElapsedMs + Math.max(0, this.now() - this.startedAt - waitedHereMs);
    const budget = { seconds: run.budgetSeconds, elapsedMs, percent: Math.round(elapsedMs / (run.budgetSeconds * 10)), waitedMs: this.baseWaitedMs + waitedHereMs };
    return {
      runId: run.id,
      request: run.request,
      effort: run.effort,
      state: run.state,
      phase: run.phase,
      iteration: run.iteration,
      maxIterations: this.o.maxIterations,
      criteria,
      budget: waitingMs !== undefined ? { ...budget, waitingMs, ...(waitingFor ? { waitingFor } : {}) } : budget,
      model: this.o.model,
      ...(run.prdPath ? { prdPath: run.prdPath } : {}),
    };
  }
}
