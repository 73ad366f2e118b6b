import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { DefinitionsHost } from '../definitions-host';
import type { LearningSupport } from '../learning';
import { TableRatings } from '../learning/table-rating';
import { registerRunCommands } from '../runs/run-commands';
import { LiveRunControl } from '../runs/live-run-control';
import type { RunService } from '../run/run-service';
import { RunWatch } from '../runs/run-watch';
import type { SessionsHost } from '../runs/sessions-host';
import { RUNS_VIEW_ID, RunsTreeProvider, type LoopListing } from '../runs/runs-tree';
import type { StoreHost } from '../store-host';
import type { RunStaleness } from '../verify/run-staleness';
import type { PrdVerifier } from '../verify/verify-prd';
import type { LockSupport } from '../lock';
import { IscTables } from './isc-tables';
import { TableLocks } from './table-lock';
import { TableSteering } from './table-steering';

export interface RunsSupport extends vscode.Disposable {
  readonly tables: IscTables;
  readonly runs: RunsTreeProvider;
  readonly watch: RunWatch;
}

/** The ISC table panels, the sidebar's Runs view and their commands. */
export function registerRunsSupport(
  context: vscode.ExtensionContext,
  hosts: { stores: StoreHost; definitions: DefinitionsHost; verifier: PrdVerifier; learning: LearningSupport; service: RunService; sessions: SessionsHost; staleness?: RunStaleness; loops?: LoopListing; locks?: LockSupport },
  log: Logger,
): RunsSupport {
  const watch = new RunWatch(hosts.stores, hosts.sessions, log.child('watch'));
  const control = new LiveRunControl(hosts.service);
  const steering = new TableSteering(hosts.stores, hosts.definitions, hosts.verifier, control, watch, hosts.learning.host, hosts.sessions, log);
  const tables = new IscTables(context.extensionUri, hosts.stores, steering, watch, log.child('table'), hosts.sessions, hosts.staleness, new TableRatings(hosts.learning.host), hosts.locks ? new TableLocks(hosts.stores, hosts.locks.locks, hosts.locks.offers) : undefined);
  const runs = new RunsTreeProvider(hosts.stores, control, watch, log.child('runs'), hosts.loops);
  const view = vscode.window.createTreeView(RUNS_VIEW_ID, { treeDataProvider: runs, showCollapseAll: false });
  let watching: vscode.Disposable | undefined;
  const opened = new Set<string>();
  const follow = (visible: boolean) => {
    watching?.dispose();
    watching = visible ? watch.watch(view) : undefined;
    if (visible) runs.refresh();
  };
  follow(view.visible);
  const disposable = vscode.Disposable.from(
    watch,
    control,
    tables,
    // A run that starts in this window opens its table beside the editor, without taking focus.
    hosts.service.onDidChangeRun((change) => {
      if (change.active && !opened.has(change.runId)) {
        opened.add(change.runId);
        tables.open(change.runId, { beside: true });
      }
    }),
    runs,
    view,
    view.onDidChangeVisibility((e) => follow(e.visible)),
    // Ratings change what the table offers (no "Rate run" once rated).
    hosts.learning.host.onDidChange(() => watch.touch()),
    new vscode.Disposable(() => watching?.dispose()),
    registerRunCommands({ stores: hosts.stores, tables, control, watch, log }),
    // Rows whose evidence files changed are marked stale: runs that end here are followed, and the tables refresh.
    ...(hosts.staleness ? [hosts.staleness.followRunsOf(hosts.service), hosts.staleness.onDidChange((runId) => watch.touch(runId))] : []),
  );
  return { tables, runs, watch, dispose: () => disposable.dispose() };
}
