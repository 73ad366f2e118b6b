import * as vscode from 'vscode';
import type { StoreHost } from '../store-host';

export interface StoreInfo {
  readonly path: string;
  readonly schemaVersion: number;
  readonly runs: number;
  readonly readOnly: boolean;
}

/** "Ideal State: Show Store Info" — where the database is and what it holds. */
export function registerShowStoreInfo(stores: StoreHost): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.showStoreInfo', async (): Promise<StoreInfo> => {
    const store = await stores.get();
    const info: StoreInfo = { path: store.location, schemaVersion: store.schemaVersion, runs: store.runs.count(), readOnly: store.readOnly };
    void vscode.window.showInformationMessage(
      `Ideal State store: ${info.path} — schema v${info.schemaVersion}, ${info.runs} run${info.runs === 1 ? '' : 's'}, ${info.readOnly ? 'read-only' : 'read-write'}`,
    );
    return info;
  });
}
