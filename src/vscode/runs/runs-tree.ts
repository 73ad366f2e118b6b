import * as vscode from 'vscode';
import { stateWords } from '../../model/run-states';
import type { Logger } from '../../model/log';
import { verdictOf } from '../../model/verdict';
import { runUsage } from '../../model/run-usage';
import { arrangeRuns, durationWords, loopChildren, loopWords, recordKind, recordWords, runLook, runTimes, spendWords, type LoopSummary, type RunSummary, type RunsNode } from './runs-tree-model';
import type { StoreHost } from '../store-host';
import type { RunControl } from './run-control';
import type { RunWatch } from './run-watch';

export const RUNS_VIEW_ID = 'idealState.runs';

export { RUN_GROUPS, arrangeRuns, formatDuration, groupOf, loopChildren, type LoopSummary, type RunSummary, type RunsNode } from './runs-tree-model';

/** The loops the view shows, and when they change (a loop's progress, not a poll). */
export interface LoopListing {
  list(): Promise<LoopSummary[]>;
  readonly onDidChange: vscode.Event<unknown>;
}

/**
 * The sidebar's Runs: runs grouped by state (only groups that hold runs), each with its
 * request, effort, criteria passed/total and duration; opening one opens its ISC table.
 * No runs at all leaves the tree empty, so the view's welcome content shows.
 */
export class RunsTreeProvider implements vscode.TreeDataProvider<RunsNode>, vscode.Disposable {
  private readonly _onDidChangeTreeData = new vscode.EventEmitter<RunsNode | undefined>();
  readonly onDidChangeTreeData = this._onDidChangeTreeData.event;
  private readonly disposables: vscode.Disposable[] = [this._onDidChangeTreeData];
  private summaries: RunSummary[] = [];
  private loopSummaries: LoopSummary[] = [];

  constructor(
    private readonly stores: StoreHost,
    private readonly control: RunControl,
    watch: RunWatch,
    private readonly log: Logger,
    private readonly loops?: LoopListing,
  ) {
    this.disposables.push(
      watch.onDidChange(() => this.refresh()),
      control.onDidChange(() => this.refresh()),
      ...(loops ? [loops.onDidChange(() => this.refresh())] : []),
    );
  }

  /** The loops as last shown, for the editor's tests. */
  get shownLoops(): readonly LoopSummary[] {
    return this.loopSummaries;
  }

  refresh(): void {
    this._onDidChangeTreeData.fire(undefined);
  }

  /** The runs as last shown, for the editor's tests. */
  get shown(): readonly RunSummary[] {
    return this.summaries;
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (node?.kind === 'group') return [...node.loops.map((loop): RunsNode => ({ kind: 'loop', loop, runs: loopChildren(loop, this.summaries) })), ...node.runs.map((run): RunsNode => ({ kind: 'run', run }))];
    if (node?.kind === 'loop') return node.runs.map((run) => ({ kind: 'run', run }));
    if (node) return [];
    try {
      [this.summaries, this.loopSummaries] = await Promise.all([this.load(), this.loops?.list() ?? Promise.resolve([])]);
    } catch (error) {
      this.log.error(`listing runs failed: ${error instanceof Error ? error.message : String(error)}`);
      this.summaries = [];
      this.loopSummaries = [];
    }
    return arrangeRuns(this.summaries, this.loopSummaries);
  }

  private async load(): Promise<RunSummary[]> {
    const store = await this.stores.get();
    return store.runs.list().map((run) => {
      const criteria = store.criteria.list(run.id);
      const record = recordKind(run, { steps: store.steps.count('run_id = ?', [run.id]), reports: store.reports.count('run_id = ?', [run.id]) });
      return {
        id: run.id,
        request: run.request,
        effort: run.effort,
        state: run.state,
        passed: criteria.filter((c) => c.outcome === 'PASS').length,
        total: criteria.length,
        passing: verdictOf(criteria).passed,
        ...((times) => ({ durationMs: times.workedMs, ...(times.waitedMs > 0 ? { waitedMs: times.waitedMs } : {}) }))(runTimes(run)),
        createdAt: run.createdAt,
        ...(run.prdPath ? { prdPath: run.prdPath } : {}),
        canCancel: this.control.canCancel(run),
        canResume: !record && this.control.canResume(run),
        pendingApprovals: this.control.approvals(run.id).length,
        ...(record ? { record } : {}),
        spent: runUsage(store.events.where("run_id = ? AND kind = 'model'", [run.id], 'seq')),
      };
    });
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${node.group.id}`;
      item.description = String(node.runs.length + node.loops.length);
      item.iconPath = new vscode.ThemeIcon(node.group.icon);
      item.contextValue = 'runGroup';
      return item;
    }
    if (node.kind === 'loop') return loopItem(node.loop, node.runs.length);
    const run = node.run;
    const item = new vscode.TreeItem(run.request, vscode.TreeItemCollapsibleState.None);
    item.id = run.id;
    const waiting = run.pendingApprovals === 0 ? '' : ` · ${run.pendingApprovals} waiting for approval`;
    const spend = spendWords(run.spent);
    item.description = run.record ? `${recordWords(run)}${waiting}` : `${run.effort} · ${run.passed}/${run.total} · ${durationWords(run)}${spend?.short ? ` · ${spend.short}` : ''}${waiting}`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendText(run.request);
    tooltip.appendMarkdown('\n\n');
    tooltip.appendText(`${run.id} · ${recordWords(run) ?? stateWords(run.state)} · ${run.effort}\n${run.passed} of ${run.total} criteria pass · ${durationWords(run, true)} · started ${run.createdAt.slice(0, 16).replace('T', ' ')}`);
    if (run.prdPath) tooltip.appendText(`\nPRD: ${run.prdPath}`);
    if (spend) tooltip.appendText(`\n${spend.lines.join('\n')}`);
    if (run.pendingApprovals > 0) tooltip.appendText(`\n${run.pendingApprovals} edit(s) or command(s) wait for your approval: open the ISC table to see and answer them.`);
    item.tooltip = tooltip;
    item.iconPath = run.pendingApprovals > 0 ? new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('editorWarning.foreground')) : lookIcon(runLook(run));
    // The context value carries what the menus may offer: run[.cancellable][.resumable].
    item.contextValue = ['run', run.canCancel ? 'cancellable' : '', run.canResume ? 'resumable' : ''].filter(Boolean).join('.');
    item.command = { command: 'idealState.openIscTable', title: 'Open ISC Table', arguments: [run.id] };
    return item;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function loopItem(loop: LoopSummary, subRuns: number): vscode.TreeItem {
  const item = new vscode.TreeItem(`Loop ${loop.passing}/${loop.total} passing · ${loop.title}`, subRuns > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `loop:${loop.id}`;
  const words = loopWords(loop, subRuns);
  item.description = words.description;
  item.tooltip = `${loop.id}\n${loop.title}\n${words.tooltip}\nClick to open its artifacts × criteria matrix.`;
  item.iconPath = new vscode.ThemeIcon(loop.state === 'RUNNING' ? 'sync~spin' : 'layers', loop.state === 'COMPLETE' ? new vscode.ThemeColor('testing.iconPassed') : undefined);
  // loop[+cancel][+resume]: what the menus may offer (never matched by the runs' own \.cancellable / \.resumable).
  item.contextValue = ['loop', loop.canCancel ? '+cancel' : '', loop.canResume ? '+resume' : ''].join('');
  item.command = { command: 'idealState.openLoopMatrix', title: 'Open Loop Matrix', arguments: [loop.id] };
  return item;
}


function lookIcon(look: ReturnType<typeof runLook>): vscode.ThemeIcon {
  const color = look.tone === 'passed' ? 'testing.iconPassed' : look.tone === 'failed' ? 'testing.iconFailed' : look.tone === 'warning' ? 'editorWarning.foreground' : undefined;
  return new vscode.ThemeIcon(look.icon, color ? new vscode.ThemeColor(color) : undefined);
}
