import type { StepCommit } from '../algorithm/ports';
import type { Restatement } from '../algorithm/restatements';
import type { AnyCriterion, Run, RunEvent, RunState, VerificationReport } from '../model';
import { parsePrd, syncPrdToStore, type PrdStoreSync, type PrdStoreSyncInput } from '../prd';
import { editCriterionText, type TableEdit } from '../store/run-edits';
import type { Store } from '../store/store';
import { recordRunVerification } from '../verify/run-verification';
import type { VerifySetResult } from '../verify/types';
import { storePrdVerification, type PreparedPrd } from './verify-prd';

/**
 * What changed in a run, said by the one writer of its rows: the views (ISC table, Runs
 * view, status bar, progress notification, Testing view, staleness, learning) update from
 * these and never poll the store for a run of their own window. A commit is said once, as
 * its 'step'; there is no second event for it.
 */
export type RunDelta =
  /** The engine made a commit durable: the run row, its current criteria, the report and events it carried. */
  | { readonly kind: 'step'; readonly runId: string; readonly run: Run; readonly criteria?: readonly AnyCriterion[]; readonly report?: VerificationReport; readonly events: readonly RunEvent[]; readonly subRun?: true }
  /** The run's criteria have a new version (an edit in the table, a saved PRD), or one is queued for its next step. */
  | { readonly kind: 'criteria'; readonly runId: string; readonly via: 'table' | 'prd'; readonly queued: boolean }
  /** A re-verification stored its outcomes. */
  | { readonly kind: 'verification'; readonly runId: string }
  /** The pending approvals of the run changed. */
  | { readonly kind: 'approvals'; readonly runId: string }
  /** The run this window was running ended (or stopped); `state` is where it ended. */
  | { readonly kind: 'ended'; readonly runId: string; readonly state: RunState; readonly subRun?: true }
  /** Something outside this window's sessions may have changed runs (another window, the command line). */
  | { readonly kind: 'outside'; readonly runId?: string };

/** A run this window is running: what its session hands edits and cancels to. */
export interface LiveRun {
  restate(runId: string, restatement: Restatement): void;
  cancel(): void;
  /**
   * A loop's sub-run: its loop shows it (the matrix, the Runs view under the loop), so its
   * deltas say so, and what follows a person's own runs (a table opened beside the editor,
   * the reflection, the Testing view) leaves it alone.
   */
  readonly subRun?: true;
}

export type CriterionEdit = TableEdit | { kind: 'queued' };

type Listener = (delta: RunDelta) => void;

/**
 * The single writer of this window's runs. The engine writes a going run's steps; every
 * other write to a run — an inline edit, a re-verification, a saved PRD, a cancel — goes
 * through here, so a going run's criteria change only through its engine (a new version it
 * sees at its next step), never behind it. Each write is said once as a RunDelta.
 */
export class RunSessions {
  private readonly live = new Map<string, LiveRun>();
  private readonly listeners = new Set<Listener>();

  constructor(private readonly store: () => Promise<Store>) {}

  onDelta(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  tell(delta: RunDelta): void {
    for (const l of [...this.listeners]) l(delta);
  }

  /** The run is going in this window; its engine takes its edits and cancel from now on. */
  begin(runId: string, run: LiveRun): void {
    this.live.set(runId, run);
  }

  /** A commit the engine of a going run made durable, said once: the views take the run, criteria and report from it, not from the store. */
  step(commit: StepCommit): void {
    const runId = commit.run.id;
    const subRun = this.live.get(runId)?.subRun;
    this.tell({ kind: 'step', runId, run: commit.run, ...(commit.criteria ? { criteria: commit.criteria } : {}), ...(commit.report ? { report: commit.report } : {}), events: commit.events, ...(subRun ? { subRun } : {}) });
  }

  end(runId: string, state: RunState): void {
    const live = this.live.get(runId);
    if (!live) return;
    this.live.delete(runId);
    this.tell({ kind: 'ended', runId, state, ...(live.subRun ? { subRun: live.subRun } : {}) });
  }

  isLive(runId: string): boolean {
    return this.live.has(runId);
  }

  liveRunIds(): string[] {
    return [...this.live.keys()];
  }

  /** Stops a going run (or every one) at its next safe point. How many were asked. */
  cancel(runId?: string): number {
    let count = 0;
    for (const [id, run] of this.live) {
      if (runId === undefined || id === runId) {
        run.cancel();
        count++;
      }
    }
    return count;
  }

  /** A criterion's new statement (the ISC table): through the engine while the run goes, else as the run's next version. */
  async restate(runId: string, criterionId: string, text: string): Promise<CriterionEdit> {
    const live = this.live.get(runId);
    if (live) {
      live.restate(runId, { criterionId, text });
      this.tell({ kind: 'criteria', runId, via: 'table', queued: true });
      return { kind: 'queued' };
    }
    const result = editCriterionText(await this.store(), runId, criterionId, text);
    if (result.kind === 'edited') this.tell({ kind: 'criteria', runId, via: 'table', queued: false });
    return result;
  }

  /** Stores a re-verification's outcomes on the run's latest criteria version. */
  async recordVerification(runId: string, set: VerifySetResult): Promise<ReturnType<typeof recordRunVerification>> {
    const stored = recordRunVerification(await this.store(), runId, set);
    if (stored.stored) this.tell({ kind: 'verification', runId });
    return stored;
  }

  /** Stores a PRD's verification (Verify Criteria, the Testing view): outcomes onto its run's latest criteria version. */
  async storePrdVerification(prd: PreparedPrd, input: Parameters<typeof storePrdVerification>[2]): Promise<ReturnType<typeof storePrdVerification>> {
    const stored = storePrdVerification(await this.store(), prd, input);
    if (stored.stored) this.tell({ kind: 'verification', runId: stored.runId });
    return stored;
  }

  /**
   * A saved PRD's criteria. A run that is going takes a reworded criterion through its
   * engine; criteria added or removed meanwhile wait until it stops (the PRD keeps them, and
   * the next save after the run syncs them). Any other PRD syncs as its next version.
   */
  async syncPrd(input: PrdStoreSyncInput): Promise<PrdStoreSync | { kind: 'queued'; runId: string; restated: string[]; waiting: string[] }> {
    const store = await this.store();
    const doc = parsePrd(input.text);
    const runId = doc.meta.runId ?? store.prdIndex.where('path = ?', [input.path])[0]?.runId;
    const live = runId ? this.live.get(runId) : undefined;
    if (runId && live) {
      const latest = store.criteria.latestVersion(runId);
      const held = new Map((latest === undefined ? [] : store.criteria.list(runId, latest)).map((c) => [c.id, c.text]));
      const restated: string[] = [];
      const waiting: string[] = [];
      for (const c of doc.criteria) {
        const was = held.get(c.id);
        if (was === undefined) waiting.push(c.id);
        else if (was !== c.text) {
          live.restate(runId, { criterionId: c.id, text: c.text });
          restated.push(c.id);
        }
      }
      for (const id of held.keys()) if (!doc.criteria.some((c) => c.id === id)) waiting.push(id);
      if (restated.length > 0) this.tell({ kind: 'criteria', runId, via: 'prd', queued: true });
      return { kind: 'queued', runId, restated, waiting };
    }
    const result = syncPrdToStore(store, input);
    if (result.kind === 'edited' || result.kind === 'created') this.tell({ kind: 'criteria', runId: result.runId, via: 'prd', queued: false });
    return result;
  }
}
