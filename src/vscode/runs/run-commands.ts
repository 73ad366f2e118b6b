import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import { engine } from '../engine';
import type { IscTables } from '../isc-table/isc-tables';
import type { StoreHost } from '../store-host';
import type { RunControl } from './run-control';
import type { RunWatch } from './run-watch';
import { formatDuration, type RunsNode } from './runs-tree';

interface Deps {
  stores: StoreHost;
  tables: IscTables;
  control: RunControl;
  watch: RunWatch;
  log: Logger;
}

/** A run id from a command argument: the id itself (palette, links, table) or a Runs view node. */
function runIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (typeof arg === 'object' && arg !== null && (arg as RunsNode).kind === 'run') return (arg as Extract<RunsNode, { kind: 'run' }>).run.id;
  return undefined;
}

/** Open ISC Table, Export Run Bundle, Delete Run, and Cancel/Resume for the run a Runs view item or the table names. */
export function registerRunCommands(deps: Deps): vscode.Disposable {
  const pickRun = async (title: string, arg: unknown, filter: (state: string) => boolean = () => true): Promise<string | undefined> => {
    const id = runIdOf(arg);
    if (id) return id;
    const runs = (await deps.stores.get()).runs.list().filter((r) => filter(r.state));
    if (runs.length === 0) {
      void vscode.window.showInformationMessage('Ideal State: there are no runs in this workspace yet. Start one with "Ideal State: Run Algorithm".');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      runs.map((r) => ({ label: r.request, description: `${r.state.replace(/_/g, ' ')} · ${r.effort} · ${formatDuration(r.elapsedMs)}`, detail: `${r.id} · ${r.createdAt.slice(0, 16).replace('T', ' ')}`, id: r.id })),
      { title, placeHolder: 'Which run?', matchOnDetail: true },
    );
    return pick?.id;
  };

  const report = (result: { ok: boolean; message: string }) => {
    if (result.ok) void vscode.window.showInformationMessage(`Ideal State: ${result.message}`);
    else void vscode.window.showWarningMessage(`Ideal State: ${result.message}`);
  };

  return vscode.Disposable.from(
    vscode.commands.registerCommand('idealState.openIscTable', async (arg?: unknown) => {
      const runId = await pickRun('Open ISC Table', arg);
      if (!runId) return;
      if (!(await deps.stores.get()).runs.get(runId)) {
        void vscode.window.showWarningMessage(`Ideal State: there is no run ${runId} in this workspace's store.`);
        return;
      }
      deps.tables.open(runId);
    }),
    vscode.commands.registerCommand('idealState.cancelRunInView', async (arg?: unknown) => {
      const runId = await pickRun('Cancel Run', arg, (s) => ['PENDING', 'RUNNING', 'NEEDS_APPROVAL'].includes(s));
      if (runId) report(await deps.control.cancel(runId));
      deps.watch.touch(runId);
    }),
    vscode.commands.registerCommand('idealState.resumeRunInView', async (arg?: unknown) => {
      const runId = await pickRun('Resume Run', arg, (s) => s !== 'COMPLETE');
      if (runId) report(await deps.control.resume(runId));
      deps.watch.touch(runId);
    }),
    vscode.commands.registerCommand('idealState.exportRunBundle', async (arg?: unknown) => {
      const runId = await pickRun('Export Run Bundle', arg);
      const folder = vscode.workspace.workspaceFolders?.[0];
      if (!runId) return;
      if (!folder || folder.uri.scheme !== 'file') {
        void vscode.window.showWarningMessage('Ideal State: open the run\'s workspace folder to export its bundle.');
        return;
      }
      const target = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, defaultUri: folder.uri, openLabel: 'Export Here', title: `Export the bundle of ${runId} into…` });
      if (!target?.[0]) return;
      try {
        const bundle = await engine().exportRunBundle(await deps.stores.get(), runId, target[0].fsPath, folder.uri.fsPath);
        deps.log.info(`${runId}: bundle exported to ${bundle.folder} (${bundle.files.length} files)`);
        const reveal = await vscode.window.showInformationMessage(`Ideal State: the bundle of ${runId} is in ${bundle.folder} (${bundle.files.length} files).`, 'Reveal');
        if (reveal) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(bundle.folder));
      } catch (error) {
        deps.log.error(`exporting the bundle of ${runId} failed: ${error instanceof Error ? error.message : String(error)}`);
        void vscode.window.showErrorMessage(`Ideal State: exporting the bundle of ${runId} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }),
    vscode.commands.registerCommand('idealState.deleteRun', async (arg?: unknown) => {
      const runId = await pickRun('Delete Run', arg);
      if (!runId) return;
      const store = await deps.stores.get();
      const run = store.runs.get(runId);
      if (!run) return;
      if (store.readOnly) {
        void vscode.window.showWarningMessage('Ideal State: the store is open read-only in this window (another window writes it); delete the run there.');
        return;
      }
      const deleteRun = 'Delete Run';
      const andPrd = 'Delete Run and PRD';
      const answer = await vscode.window.showWarningMessage(
        `Delete the run "${run.request}"?`,
        { modal: true, detail: `${runId} and its criteria, reports, decisions and events are removed from the store. Ratings stay.${run.prdPath ? ` The PRD ${run.prdPath} stays unless you choose "${andPrd}".` : ''}` },
        ...(run.prdPath ? [deleteRun, andPrd] : [deleteRun]),
      );
      if (answer !== deleteRun && answer !== andPrd) return;
      deps.tables.close(runId);
      engine().deleteRun(store, runId);
      deps.log.info(`${runId} deleted from the store`);
      if (answer === andPrd && run.prdPath) await deletePrd(run.prdPath, deps.log);
      deps.watch.touch(runId);
    }),
  );
}

/** The PRD goes to the trash, and only when it lies inside the workspace folder. */
async function deletePrd(prdPath: string, log: Logger): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || folder.uri.scheme !== 'file') return;
  const confined = await engine().confineOnDisk(folder.uri.fsPath, prdPath);
  if (!confined.ok || !confined.exists) {
    void vscode.window.showWarningMessage(`Ideal State: the PRD ${prdPath} was not deleted: ${confined.ok ? 'it does not exist' : confined.reason}.`);
    return;
  }
  await vscode.workspace.fs.delete(vscode.Uri.file(confined.absolute), { useTrash: true });
  log.info(`PRD ${confined.relative} moved to the trash`);
}
