import * as vscode from 'vscode';
import { runStateIs } from '../../model/run-states';
import type { Logger } from '../../model/log';
import { engine } from '../engine';
import type { IscTables } from '../isc-table/isc-tables';
import type { StoreHost } from '../store-host';
import type { RunControl } from './run-control';
import type { RunWatch } from './run-watch';
import { automation, pickRun, runChoice } from './pick-run';

interface Deps {
  stores: StoreHost;
  tables: IscTables;
  control: RunControl;
  watch: RunWatch;
  log: Logger;
}

/** What Delete Run did, for automation and tests. */
export interface DeleteRunResult {
  deleted: boolean;
  prdDeleted: boolean;
}

/** Open ISC Table, Export Run Bundle and Delete Run for the run a Runs view item or the table names (Cancel and Resume: run-control-commands.ts). */
export function registerRunCommands(deps: Deps): vscode.Disposable {
  const pick = (title: string, arg: unknown) =>
    pickRun(title, arg, async () => (await deps.stores.get()).runs.list().map(runChoice), 'there are no runs in this workspace yet. Start one with "Ideal State: Run Algorithm".');

  return vscode.Disposable.from(
    vscode.commands.registerCommand('idealState.openIscTable', async (arg?: unknown) => {
      const runId = await pick('Open ISC Table', arg);
      if (!runId) return;
      if (!(await deps.stores.get()).runs.get(runId)) {
        void vscode.window.showWarningMessage(`Ideal State: there is no run ${runId} in this workspace's store.`);
        return;
      }
      deps.tables.open(runId);
    }),
    vscode.commands.registerCommand('idealState.exportRunBundle', async (arg?: unknown): Promise<string | undefined> => {
      const runId = await pick('Export Run Bundle', arg);
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!runId) return undefined;
      if (!folder || folder.uri.scheme !== 'file') {
        void vscode.window.showWarningMessage("Ideal State: open the run's workspace folder to export its bundle.");
        return undefined;
      }
      const given = automation(arg).folder;
      const target = given ? vscode.Uri.file(given) : (await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, defaultUri: folder.uri, openLabel: 'Export Here', title: `Export the bundle of ${runId} into…` }))?.[0];
      if (!target) return undefined;
      try {
        const bundle = await engine().exportRunBundle(await deps.stores.get(), runId, target.fsPath, folder.uri.fsPath);
        deps.log.info(`${runId}: bundle exported to ${bundle.folder} (${bundle.files.length} files)`);
        void vscode.window.showInformationMessage(`Ideal State: the bundle of ${runId} is in ${bundle.folder} (${bundle.files.length} files).`, 'Reveal').then((reveal) => {
          if (reveal) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(bundle.folder));
        });
        return bundle.folder;
      } catch (error) {
        deps.log.error(`exporting the bundle of ${runId} failed: ${error instanceof Error ? error.message : String(error)}`);
        void vscode.window.showErrorMessage(`Ideal State: exporting the bundle of ${runId} failed: ${error instanceof Error ? error.message : String(error)}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand('idealState.deleteRun', async (arg?: unknown): Promise<DeleteRunResult> => {
      const nothing: DeleteRunResult = { deleted: false, prdDeleted: false };
      const runId = await pick('Delete Run', arg);
      if (!runId) return nothing;
      const store = await deps.stores.get();
      const run = store.runs.get(runId);
      if (!run) {
        void vscode.window.showWarningMessage(`Ideal State: there is no run ${runId} in this workspace's store.`);
        return nothing;
      }
      if (store.readOnly) {
        void vscode.window.showWarningMessage('Ideal State: the store is open read-only in this window (another window writes it); delete the run there.');
        return nothing;
      }
      if (runStateIs('going', run.state) && deps.control.canCancel(run)) {
        void vscode.window.showWarningMessage(`Ideal State: ${runId} is going in this window; cancel it first, then delete it.`);
        return nothing;
      }
      const deleteRun = 'Delete Run';
      const andPrd = 'Delete Run and PRD';
      const given = automation(arg).confirmed;
      const answer = given
        ? given === 'run-and-prd' ? andPrd : deleteRun
        : await vscode.window.showWarningMessage(
            `Delete the run "${run.request}"?`,
            { modal: true, detail: `${runId} and its criteria, reports, decisions and events are removed from the store. Ratings stay.${run.prdPath ? ` The PRD ${run.prdPath} stays unless you choose "${andPrd}" (it goes to the trash where there is one).` : ''}` },
            ...(run.prdPath ? [deleteRun, andPrd] : [deleteRun]),
          );
      if (answer !== deleteRun && answer !== andPrd) return nothing;
      deps.tables.close(runId);
      engine().deleteRun(store, runId);
      deps.log.info(`${runId} deleted from the store`);
      const prdDeleted = answer === andPrd && run.prdPath ? await deletePrd(run.prdPath, deps.log) : false;
      deps.watch.touch(runId);
      return { deleted: true, prdDeleted };
    }),
  );
}

/**
 * The PRD goes to the trash, and only when it lies inside the workspace folder. Where the
 * file system has no trash (a remote or web workbench), the user's explicit "Delete Run and
 * PRD" deletes it outright.
 */
async function deletePrd(prdPath: string, log: Logger): Promise<boolean> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || folder.uri.scheme !== 'file') return false;
  const confined = await engine().confineOnDisk(folder.uri.fsPath, prdPath);
  if (!confined.ok || !confined.exists) {
    void vscode.window.showWarningMessage(`Ideal State: the PRD ${prdPath} was not deleted: ${confined.ok ? 'it does not exist' : confined.reason}.`);
    return false;
  }
  const uri = vscode.Uri.file(confined.absolute);
  try {
    await vscode.workspace.fs.delete(uri, { useTrash: true });
    log.info(`PRD ${confined.relative} moved to the trash`);
  } catch (error) {
    log.info(`PRD ${confined.relative}: no trash here (${error instanceof Error ? error.message : String(error)}); deleting it as asked`);
    await vscode.workspace.fs.delete(uri, { useTrash: false });
    log.info(`PRD ${confined.relative} deleted`);
  }
  return true;
}
