import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { DefinitionsHost } from '../definitions-host';
import type { LearningSupport } from '../learning';
import { TableRatings } from '../learning/table-rating';
import type { RunService } from '../run/run-service';
import type { RunControl } from '../runs/run-control';
import type { RunWatch } from '../runs/run-watch';
import type { SessionsHost } from '../runs/sessions-host';
import type { StoreHost } from '../store-host';
import type { RunStaleness } from '../verify/run-staleness';
import type { PrdVerifier } from '../verify/verify-prd';
import type { LockSupport } from '../lock';
import { IscTables } from './isc-tables';
import { TableLocks } from './table-lock';
import { TableSteering } from './table-steering';

/** The ISC table panels: one per run, steering through the run control, and opened beside the editor when a run starts here. */
export function registerIscTables(
  context: vscode.ExtensionContext,
  hosts: { stores: StoreHost; definitions: DefinitionsHost; verifier: PrdVerifier; learning: LearningSupport; service: RunService; sessions: SessionsHost; staleness?: RunStaleness; locks?: LockSupport },
  control: RunControl,
  watch: RunWatch,
  log: Logger,
): { tables: IscTables; disposable: vscode.Disposable } {
  const steering = new TableSteering(hosts.stores, hosts.definitions, hosts.verifier, control, watch, hosts.learning.host, hosts.sessions, log);
  const tables = new IscTables(context.extensionUri, hosts.stores, steering, watch, log.child('table'), hosts.sessions, hosts.staleness, new TableRatings(hosts.learning.host), hosts.locks ? new TableLocks(hosts.stores, hosts.locks.locks, hosts.locks.offers) : undefined);
  const opened = new Set<string>();
  const disposable = vscode.Disposable.from(
    tables,
    // A run that starts in this window opens its table beside the editor, without taking focus (a loop's sub-run shows under its loop instead).
    hosts.service.onDidChangeRun((delta) => {
      if (delta.kind === 'step' && !delta.subRun && !opened.has(delta.runId)) {
        opened.add(delta.runId);
        tables.open(delta.runId, { beside: true });
      }
    }),
  );
  return { tables, disposable };
}
