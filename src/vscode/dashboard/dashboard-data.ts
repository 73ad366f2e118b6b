import * as fs from 'node:fs/promises';
import * as vscode from 'vscode';
import type { GateOutcomeRecord } from '../../model/gate-outcome';
import type { Logger } from '../../model/log';
import { engine } from '../engine';
import type { StoreHost } from '../store-host';
import type { DashboardSource } from './dashboard-panel';

/**
 * The panel's figures: this window's store, and the done gate's verdicts for each folder of the
 * workspace from where the gate leaves them (the command line's store for that folder and its
 * pending records, in the user's data folder: src/app/dashboard/gate-outcomes.ts), read-only.
 * The stop hook runs in the agent host, never in the editor, so its verdicts are not in this
 * window's store unless read from there. A folder whose verdicts cannot be read is said in the
 * log and the rest is shown.
 */
export function dashboardSource(stores: StoreHost, extensionUri: vscode.Uri, log: Logger): DashboardSource {
  const wasmPath = vscode.Uri.joinPath(extensionUri, 'dist', 'sql-wasm.wasm').fsPath;
  return async () => {
    const store = await stores.get();
    const gateOutcomes: GateOutcomeRecord[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      if (folder.uri.scheme !== 'file') continue;
      // The gate names the workspace as its host gave it; the editor may have opened it through a symlink.
      const paths = new Set([folder.uri.fsPath, await fs.realpath(folder.uri.fsPath).catch(() => folder.uri.fsPath)]);
      for (const workspace of paths) {
        try {
          const read = await engine().readGateOutcomes(workspace, { wasmPath });
          gateOutcomes.push(...read.records);
          if (read.skipped > 0) log.warn(`${read.skipped} of the gate's records beside ${read.storeFile} are not verdicts it wrote; they are not counted`);
        } catch (error) {
          log.warn(`the gate's verdicts for ${folder.name} could not be read: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    }
    return engine().aggregateDashboard(store, { gateOutcomes });
  };
}
