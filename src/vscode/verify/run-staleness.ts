import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { AnyCriterion, VerificationReport } from '../../model';
import type { Coverage } from '../../verify/types';
import type { StalenessTracker } from '../../verify/staleness';
import { engine } from '../engine';
import type { RunDelta } from '../../app/run-sessions';
import type { StoreHost } from '../store-host';
import type { CriteriaTests } from './criteria-tests';
import type { StaleMark } from '../../store/stale-marks';
import { coverageOf, newestVerdicts, staleMarkOf, type NewestVerdict } from './run-coverage';

/** Changes here never make a run's PASS stale: version control, dependencies, and Ideal State's own files (PRDs, scripts). */
const IGNORED = ['.git', 'node_modules', '.ideal-state'];
/** Runs followed at most; the oldest followed is dropped first. */
const MAX_FOLLOWED = 50;

interface Followed {
  readonly tracker: StalenessTracker;
  /** Criterion id → the verdict the tracker holds and what it depends on. */
  readonly recorded: Map<string, { verdict: NewestVerdict; coverage: Coverage }>;
  /** Criterion id → why its PASS is stale. */
  readonly stale: Map<string, string>;
}

/**
 * Which PASS results of a run a workspace change made stale, so the table marks them stale. The
 * store keeps each criterion's verdict; this follows the runs the window shows (an open ISC
 * table) or finished here, feeds the engine's StalenessTracker from file saves and the file
 * watcher, and tells the table which rows to mark. A change whose file is no newer than the
 * verdict (the run's own edit, reported late by the watcher) makes nothing stale. A newer
 * verdict on a row (re-verify, the next iteration) clears its mark.
 */
export class RunStaleness implements vscode.Disposable {
  private readonly _onDidChange = new vscode.EventEmitter<string>();
  /** A run's id, when rows of it went stale. */
  readonly onDidChange = this._onDidChange.event;
  private readonly runs = new Map<string, Followed>();
  private readonly disposables: vscode.Disposable[] = [this._onDidChange];

  constructor(
    private readonly stores: StoreHost,
    private readonly tests: Pick<CriteriaTests, 'showResults'>,
    private readonly log: Logger,
  ) {
    const files = vscode.workspace.createFileSystemWatcher('**/*');
    const changed = (uri: vscode.Uri, deleted = false) => void this.changed(uri, deleted).catch((e: unknown) => this.log.warn(`staleness after a change to ${vscode.workspace.asRelativePath(uri)} failed: ${String(e)}`));
    this.disposables.push(
      files,
      files.onDidChange((uri) => changed(uri)),
      files.onDidCreate((uri) => changed(uri)),
      files.onDidDelete((uri) => changed(uri, true)),
      // A save in the editor is known at once; the watcher also sees changes made outside it.
      vscode.workspace.onDidSaveTextDocument((document) => changed(document.uri)),
    );
  }

  /** Follows every run that ends in this window, and shows its results in the Testing view (a loop's sub-run is its loop's). */
  followRunsOf(runs: { readonly onDidChangeRun: vscode.Event<RunDelta> }): vscode.Disposable {
    return runs.onDidChangeRun((delta) => {
      if (delta.kind === 'ended' && !delta.subRun) void this.followRun(delta.runId).catch((e: unknown) => this.log.warn(`following ${delta.runId} for staleness failed: ${String(e)}`));
    });
  }

  /** Starts following a run's verdicts from the store; with a PRD, its criteria in the Testing view show them. */
  async followRun(runId: string): Promise<void> {
    const store = await this.stores.get();
    const run = store.runs.get(runId);
    if (!run) return;
    const criteria = store.criteria.list(runId);
    const reports = store.reports.where('run_id = ?', [runId], 'created_at DESC', 20);
    const followed = this.sync(runId, criteria, reports, store.staleMarks.list(runId));
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!run.prdPath || !folder || followed.recorded.size === 0) return;
    const shown = criteria.filter((c) => followed.recorded.has(c.id));
    const results = shown.map((c) => followed.recorded.get(c.id)!.verdict.result);
    const coverage = Object.fromEntries(shown.map((c) => [c.id, followed.recorded.get(c.id)!.coverage]));
    await this.tests.showResults(vscode.Uri.joinPath(folder.uri, run.prdPath), `Run ${runId}`, shown, results, coverage);
  }

  /**
   * The criteria of a run whose PASS went stale since it was given (and the run is followed
   * from now on). `stored`: the run's marks from the store, so a mark made before a reload
   * still holds while its verdict is the newest.
   */
  staleIds(runId: string, criteria: readonly AnyCriterion[], reports: readonly VerificationReport[], stored: readonly StaleMark[] = []): ReadonlySet<string> {
    return new Set(this.sync(runId, criteria, reports, stored).stale.keys());
  }

  /** Brings the tracker up to the newest verdicts: a new verdict is watched afresh and clears the row's mark. */
  private sync(runId: string, criteria: readonly AnyCriterion[], reports: readonly VerificationReport[], stored: readonly StaleMark[]): Followed {
    let followed = this.runs.get(runId);
    const fresh = !followed;
    if (!followed) {
      followed = { tracker: new (engine().StalenessTracker)({ ignore: IGNORED }), recorded: new Map(), stale: new Map() };
      this.runs.set(runId, followed);
      if (this.runs.size > MAX_FOLLOWED) this.runs.delete(this.runs.keys().next().value!);
    }
    const newest = newestVerdicts(reports);
    for (const c of criteria) {
      const verdict = newest.get(c.id);
      const before = followed.recorded.get(c.id)?.verdict;
      if (!verdict || (before && before.reportId === verdict.reportId && before.at === verdict.at && before.result.outcome === verdict.result.outcome)) continue;
      const coverage = coverageOf(c, verdict.result);
      followed.recorded.set(c.id, { verdict, coverage });
      const mark = staleMarkOf(stored, c.id, verdict);
      if (mark) {
        // Made stale before (this window or one before a reload): it stays so until verified again.
        followed.stale.set(c.id, mark.why);
        continue;
      }
      followed.tracker.record(verdict.result, coverage);
      followed.stale.delete(c.id);
    }
    // Files the verdicts name may have changed while no window watched (closed, reloading).
    if (fresh) void this.catchUp(runId, followed).catch((e: unknown) => this.log.warn(`${runId}: looking for changes made while the window was closed failed: ${String(e)}`));
    return followed;
  }

  private async changed(uri: vscode.Uri, deleted: boolean): Promise<void> {
    if (uri.scheme !== 'file' || this.runs.size === 0) return;
    const root = vscode.workspace.getWorkspaceFolder(uri)?.uri.fsPath;
    if (!root) return;
    const file = path.relative(root, uri.fsPath).split(path.sep).join('/');
    let modified: number | undefined;
    for (const [runId, followed] of this.runs) {
      const hit = followed.tracker.changed(file);
      if (hit.length === 0) continue;
      modified ??= deleted ? Number.POSITIVE_INFINITY : await mtime(uri);
      await this.mark(runId, followed, file, hit, modified);
    }
  }

  /**
   * Marks what a change to `file` (modified at `modified`) made stale, keeps the marks in the
   * store, and tells the tables. A file written before the verdict was given (the run's own
   * edit, seen late) takes nothing away.
   */
  private async mark(runId: string, followed: Followed, file: string, hit: readonly string[], modified: number): Promise<void> {
    const marks: StaleMark[] = [];
    const at = new Date().toISOString();
    for (const id of hit) {
      const recorded = followed.recorded.get(id);
      if (!recorded) continue;
      if (modified <= Date.parse(recorded.verdict.at)) {
        followed.tracker.record(recorded.verdict.result, recorded.coverage);
        continue;
      }
      const why = `${file} changed`;
      followed.stale.set(id, why);
      marks.push({ runId, criterionId: id, reportId: recorded.verdict.reportId, verdictAt: recorded.verdict.at, why, at });
    }
    if (marks.length === 0) return;
    this.log.info(`${runId}: ${file} changed; ${marks.map((m) => m.criterionId).join(', ')} were verified before it and must be verified again`);
    this._onDidChange.fire(runId);
    const store = await this.stores.get();
    // Another window writes the store: the mark holds here, and that window sees the change itself.
    if (!store.readOnly && store.runs.get(runId)) store.staleMarks.mark(...marks);
  }

  /** On first following a run: a file a PASS located its evidence in, changed since the verdict, makes it stale. */
  private async catchUp(runId: string, followed: Followed): Promise<void> {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') return;
    const files = new Set<string>();
    for (const id of followed.tracker.watched) for (const p of followed.recorded.get(id)?.coverage.paths ?? []) files.add(p);
    for (const file of files) {
      const hit = followed.tracker.changed(file);
      if (hit.length === 0) continue;
      const modified = await mtime(vscode.Uri.joinPath(folder.uri, file));
      if (modified !== Number.POSITIVE_INFINITY) {
        await this.mark(runId, followed, file, hit, modified);
        continue;
      }
      // The file is not there now. Only a PASS that named it saw it there (it was deleted since);
      // a READ that failed because it was missing, or a criterion watching the whole workspace,
      // has seen no change: they stay watched, unmarked.
      const gone = hit.filter((id) => followed.recorded.get(id)?.verdict.result.outcome === 'PASS' && followed.recorded.get(id)?.coverage.paths?.includes(file));
      for (const id of hit.filter((x) => !gone.includes(x))) {
        const recorded = followed.recorded.get(id);
        if (recorded) followed.tracker.record(recorded.verdict.result, recorded.coverage);
      }
      if (gone.length > 0) await this.mark(runId, followed, file, gone, modified);
    }
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

async function mtime(uri: vscode.Uri): Promise<number> {
  try {
    return (await vscode.workspace.fs.stat(uri)).mtime;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}
