import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Run, RunState } from '../../model';
import type { StoreHost } from '../store-host';
import type { RunControl } from './run-control';
import type { RunWatch } from './run-watch';

export const RUNS_VIEW_ID = 'idealState.runs';

/** The view's groups, in order, and the states each holds (a run with pending approvals goes under "Needs approval" whatever its state). */
export const RUN_GROUPS: readonly { id: string; label: string; icon: string; states: readonly RunState[] }[] = [
  { id: 'running', label: 'Running', icon: 'sync', states: ['RUNNING', 'PENDING'] },
  { id: 'approval', label: 'Needs approval', icon: 'bell-dot', states: ['NEEDS_APPROVAL'] },
  { id: 'finished', label: 'Finished', icon: 'pass', states: ['COMPLETE', 'BUDGET_EXHAUSTED', 'BLOCKED', 'CANCELLED'] },
  { id: 'failed', label: 'Failed', icon: 'error', states: ['FAILED'] },
];

export type RunsNode = { kind: 'group'; group: (typeof RUN_GROUPS)[number]; runs: RunSummary[] } | { kind: 'run'; run: RunSummary };

export interface RunSummary {
  id: string;
  request: string;
  effort: string;
  state: RunState;
  passed: number;
  total: number;
  durationMs: number;
  createdAt: string;
  prdPath?: string;
  canCancel: boolean;
  canResume: boolean;
  /** Edits and commands of the run waiting for a person in this window. */
  pendingApprovals: number;
}

/** The group a run shows under: waiting approvals first, then its state. */
export function groupOf(run: Pick<RunSummary, 'state' | 'pendingApprovals'>): (typeof RUN_GROUPS)[number]['id'] | undefined {
  if (run.pendingApprovals > 0) return 'approval';
  return RUN_GROUPS.find((g) => g.states.includes(run.state))?.id;
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

  constructor(
    private readonly stores: StoreHost,
    private readonly control: RunControl,
    watch: RunWatch,
    private readonly log: Logger,
  ) {
    this.disposables.push(
      watch.onDidChange(() => this.refresh()),
      control.onDidChange(() => this.refresh()),
    );
  }

  refresh(): void {
    this._onDidChangeTreeData.fire(undefined);
  }

  /** The runs as last shown, for the editor's tests. */
  get shown(): readonly RunSummary[] {
    return this.summaries;
  }

  async getChildren(node?: RunsNode): Promise<RunsNode[]> {
    if (node?.kind === 'group') return node.runs.map((run) => ({ kind: 'run', run }));
    if (node) return [];
    try {
      this.summaries = await this.load();
    } catch (error) {
      this.log.error(`listing runs failed: ${error instanceof Error ? error.message : String(error)}`);
      this.summaries = [];
    }
    return RUN_GROUPS.map((group) => ({ kind: 'group' as const, group, runs: this.summaries.filter((r) => groupOf(r) === group.id) })).filter((g) => g.runs.length > 0);
  }

  private async load(): Promise<RunSummary[]> {
    const store = await this.stores.get();
    return store.runs.list().map((run) => {
      const criteria = store.criteria.list(run.id);
      return {
        id: run.id,
        request: run.request,
        effort: run.effort,
        state: run.state,
        passed: criteria.filter((c) => c.outcome === 'PASS').length,
        total: criteria.length,
        durationMs: durationOf(run),
        createdAt: run.createdAt,
        ...(run.prdPath ? { prdPath: run.prdPath } : {}),
        canCancel: this.control.canCancel(run),
        canResume: this.control.canResume(run),
        pendingApprovals: this.control.approvals(run.id).length,
      };
    });
  }

  getTreeItem(node: RunsNode): vscode.TreeItem {
    if (node.kind === 'group') {
      const item = new vscode.TreeItem(node.group.label, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `group:${node.group.id}`;
      item.description = String(node.runs.length);
      item.iconPath = new vscode.ThemeIcon(node.group.icon);
      item.contextValue = 'runGroup';
      return item;
    }
    const run = node.run;
    const item = new vscode.TreeItem(run.request, vscode.TreeItemCollapsibleState.None);
    item.id = run.id;
    const waiting = run.pendingApprovals === 0 ? '' : ` · ${run.pendingApprovals} waiting for approval`;
    item.description = `${run.effort} · ${run.passed}/${run.total} · ${formatDuration(run.durationMs)}${waiting}`;
    const tooltip = new vscode.MarkdownString(undefined, true);
    tooltip.appendText(run.request);
    tooltip.appendMarkdown('\n\n');
    tooltip.appendText(`${run.id} · ${run.state.replace(/_/g, ' ')} · ${run.effort}\n${run.passed} of ${run.total} criteria pass · ${formatDuration(run.durationMs)} · started ${run.createdAt.slice(0, 16).replace('T', ' ')}`);
    if (run.prdPath) tooltip.appendText(`\nPRD: ${run.prdPath}`);
    if (run.pendingApprovals > 0) tooltip.appendText(`\n${run.pendingApprovals} edit(s) or command(s) wait for your approval: open the ISC table to see and answer them.`);
    item.tooltip = tooltip;
    item.iconPath = run.pendingApprovals > 0 ? new vscode.ThemeIcon('bell-dot', new vscode.ThemeColor('editorWarning.foreground')) : new vscode.ThemeIcon(stateIcon(run.state), stateColor(run.state));
    // The context value carries what the menus may offer: run[.cancellable][.resumable].
    item.contextValue = ['run', run.canCancel ? 'cancellable' : '', run.canResume ? 'resumable' : ''].filter(Boolean).join('.');
    item.command = { command: 'idealState.openIscTable', title: 'Open ISC Table', arguments: [run.id] };
    return item;
  }

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function durationOf(run: Run): number {
  if (run.startedAt && run.finishedAt) return Math.max(0, Date.parse(run.finishedAt) - Date.parse(run.startedAt));
  return run.elapsedMs;
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m} min` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

function stateIcon(state: RunState): string {
  switch (state) {
    case 'RUNNING':
      return 'sync~spin';
    case 'PENDING':
      return 'circle-large-outline';
    case 'NEEDS_APPROVAL':
      return 'bell-dot';
    case 'COMPLETE':
      return 'pass-filled';
    case 'BUDGET_EXHAUSTED':
      return 'watch';
    case 'BLOCKED':
      return 'debug-pause';
    case 'CANCELLED':
      return 'circle-slash';
    case 'FAILED':
      return 'error';
  }
}

function stateColor(state: RunState): vscode.ThemeColor | undefined {
  if (state === 'COMPLETE') return new vscode.ThemeColor('testing.iconPassed');
  if (state === 'FAILED') return new vscode.ThemeColor('testing.iconFailed');
  if (state === 'NEEDS_APPROVAL' || state === 'BUDGET_EXHAUSTED' || state === 'BLOCKED') return new vscode.ThemeColor('editorWarning.foreground');
  return undefined;
}
