import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { DefinitionsHost } from '../definitions-host';
import { registerIscTables } from '../isc-table';
import type { IscTables } from '../isc-table/isc-tables';
import type { LearningSupport } from '../learning';
import type { LockSupport } from '../lock';
import type { RunService } from '../run/run-service';
import type { StoreHost } from '../store-host';
import type { RunStaleness } from '../verify/run-staleness';
import type { PrdVerifier } from '../verify/verify-prd';
import { LiveRunControl } from './live-run-control';
import { registerRunCommands } from './run-commands';
import { registerRunControl } from './run-control-commands';
import { RunWatch } from './run-watch';
import type { LoopListing, RunsTreeProvider } from './runs-tree';
import { registerRunsView } from './runs-view';
import type { SessionsHost } from './sessions-host';

export interface RunsSupport extends vscode.Disposable {
  readonly tables: IscTables;
  readonly runs: RunsTreeProvider;
  readonly watch: RunWatch;
}

/** The window's runs as a person sees and steers them: the ISC tables, the Runs view, and the commands on a run. */
export function registerRunsSupport(
  context: vscode.ExtensionContext,
  hosts: { stores: StoreHost; definitions: DefinitionsHost; verifier: PrdVerifier; learning: LearningSupport; service: RunService; sessions: SessionsHost; staleness?: RunStaleness; loops?: LoopListing; locks?: LockSupport },
  log: Logger,
): RunsSupport {
  const watch = new RunWatch(hosts.stores, hosts.sessions, log.child('watch'));
  const control = new LiveRunControl(hosts.service);
  const { tables, disposable: tablesDisposable } = registerIscTables(context, hosts, control, watch, log);
  const { runs, disposable: view } = registerRunsView(hosts.stores, control, watch, log.child('runs'), hosts.loops);
  const disposable = vscode.Disposable.from(
    watch,
    control,
    tablesDisposable,
    view,
    // Ratings change what the table offers (no "Rate run" once rated).
    hosts.learning.host.onDidChange(() => watch.touch()),
    registerRunCommands({ stores: hosts.stores, tables, control, watch, log }),
    registerRunControl({ service: hosts.service, stores: hosts.stores, control, watch, log }),
    // Rows whose evidence files changed are marked stale: runs that end here are followed, and the tables refresh.
    ...(hosts.staleness ? [hosts.staleness.followRunsOf(hosts.service), hosts.staleness.onDidChange((runId) => watch.touch(runId))] : []),
  );
  return { tables, runs, watch, dispose: () => disposable.dispose() };
}
