import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { StoreHost } from '../store-host';
import type { RunControl } from './run-control';
import type { RunWatch } from './run-watch';
import { RUNS_VIEW_ID, RunsTreeProvider, type LoopListing } from './runs-tree';

/**
 * The sidebar's Runs view: its tree of the workspace's runs (and loops), refreshed while it is
 * visible by the run watch and not at all while it is hidden.
 */
export function registerRunsView(stores: StoreHost, control: RunControl, watch: RunWatch, log: Logger, loops?: LoopListing): { runs: RunsTreeProvider; disposable: vscode.Disposable } {
  const runs = new RunsTreeProvider(stores, control, watch, log, loops);
  const view = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: runs, showCollapseAll: false });
  let watching: vscode.Disposable | undefined;
  const follow = (visible: boolean) => {
    watching?.dispose();
    watching = visible ? watch.watch(view) : undefined;
    if (visible) runs.refresh();
  };
  follow(view.visible);
  const disposable = vscode.Disposable.from(runs, view, view.onDidChangeVisibility((e) => follow(e.visible)), new vscode.Disposable(() => watching?.dispose()));
  return { runs, disposable };
}
