import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { StoreHost } from '../store-host';
import { engine } from '../engine';
import { EditorWorkspace } from './editor-workspace';
import { pickRun, runChoice } from '../runs/pick-run';
import type { RunService } from './run-service';
import { undoableSteps } from '../../agent/undo-order';

/** For automation and tests: which run, and that the confirmation was given. */
export interface UndoRunArgs {
  runId?: string;
  confirmed?: boolean;
}

const RESTORE = 'Restore Files';

/**
 * "Undo Run Changes": every file the run changed goes back to its checkpoint (the text as
 * the run first read it), and files the run created are removed — after a confirmation
 * listing them. The run's PRD goes back too, unless it was edited after the run: then it is
 * left as it is, and the message says so. The restore is itself a WorkspaceEdit (undoable), then saved; when the
 * editor's document model cannot hold the bytes exactly (mixed line endings), the file is
 * written as the checkpoint holds it.
 */
export function registerUndoRunChanges(service: RunService, stores: StoreHost, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.undoRunChanges', async (args?: UndoRunArgs): Promise<string[] | undefined> => {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (!folder || folder.uri.scheme !== 'file') {
      void vscode.window.showWarningMessage('Ideal State: open the folder the run worked in to undo its changes.');
      return undefined;
    }
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Ideal State: in Restricted Mode nothing is written to the workspace, so run changes cannot be undone here. Trust the workspace first.');
      return undefined;
    }
    const automated = args !== undefined && typeof args === 'object' && !(args instanceof vscode.Uri);
    const store = await stores.get();
    const workspace = new EditorWorkspace(folder.uri);
    const stepsOf = (id: string) => engine().undoPlan(new (engine().StoreRunStorage)(store).checkpoints(id));
    // What is already as before the run (an undo done before, a created file since deleted) is not offered again.
    const pending = async (id: string) => {
      const out: ReturnType<typeof stepsOf> = [];
      for (const step of stepsOf(id)) if (!engine().undoDone(step, await workspace.readFile(step.path).catch(() => undefined))) out.push(step);
      return out;
    };
    // Newest first, each run with what it can still undo: never a file a later run changed again.
    const runs = await service.runsWithChanges();
    const undoable = undoableSteps(await Promise.all(runs.map(async (run) => ({ run, pending: await pending(run.id) }))));
    let runId: string | undefined;
    if (automated && args.runId) runId = args.runId;
    else runId = await pickRun('Undo Run Changes', undefined, () => undoable.map((u) => runChoice(u.run)), 'No run has changes left to undo in this workspace.');
    if (!runId) return undefined;
    if (service.activeRuns().some((r) => r.runId === runId)) {
      void vscode.window.showWarningMessage('Ideal State: this run is still going. Cancel it first, then undo its changes.');
      return undefined;
    }
    const all = undoable.find((u) => u.run.id === runId)?.steps ?? [];
    if (all.length === 0 && (await pending(runId)).length > 0) {
      void vscode.window.showInformationMessage('Ideal State: nothing to restore for this run: a later run changed its files again. Undo that run first.');
      return [];
    }
    // The run's PRD is left as it is when it was edited after the run (its step carries the fingerprint of what the run left).
    const left: { path: string; reason: string }[] = [];
    const plan: typeof all = [];
    for (const step of all) {
      const reason = step.ifSha256 === undefined ? undefined : engine().undoHolds(step, await workspace.readFile(step.path).catch(() => undefined));
      if (reason === undefined) plan.push(step);
      else left.push({ path: step.path, reason });
    }
    const leftNote = left.map((l) => `${l.path} is not restored: ${l.reason}.`).join('\n');
    if (plan.length === 0) {
      void vscode.window.showInformationMessage(left.length > 0 ? `Ideal State: nothing to restore. ${leftNote}` : 'Ideal State: nothing to restore: every file this run changed is already as it was before the run.');
      return [];
    }
    if (!(automated && args.confirmed)) {
      const listing = plan.map((s) => `${s.action === 'restore' ? '↺' : '✕'} ${s.path}`).join('\n');
      const answer = await vscode.window.showWarningMessage(
        `Restore ${plan.length} file${plan.length === 1 ? '' : 's'} to how they were before the run?`,
        { modal: true, detail: `${listing}\n\n↺ restored to the text before the run · ✕ created by the run, deleted.\nChanges made to these files since the run are lost.${left.length > 0 ? `\n\n${leftNote}` : ''}` },
        RESTORE,
      );
      if (answer !== RESTORE) return undefined;
    }
    const changed: string[] = [];
    const failed: string[] = [];
    for (const step of plan) {
      try {
        if (step.action === 'delete') {
          await workspace.deleteFile(step.path);
        } else {
          await workspace.writeFile(step.path, step.text);
          await exactly(await workspace.uriOf(step.path), step.text, log);
        }
        changed.push(step.path);
      } catch (error) {
        failed.push(step.path);
        log.error(`undo of ${step.path} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    log.info(`undo of ${runId}: ${changed.length} file(s) restored${failed.length ? `, ${failed.length} failed` : ''}`);
    if (failed.length > 0) void vscode.window.showErrorMessage(`Ideal State: ${failed.length} file(s) could not be restored: ${failed.join(', ')}. The log has the reason.`);
    else void vscode.window.showInformationMessage(`Ideal State: ${changed.length} file${changed.length === 1 ? '' : 's'} restored to how they were before the run.${left.length > 0 ? ` ${leftNote}` : ''}`);
    return changed;
  });
}

/** The bytes on disk are the checkpoint's, or they are made so (a document normalises mixed line endings). */
async function exactly(uri: vscode.Uri, text: string, log: Logger): Promise<void> {
  const want = new TextEncoder().encode(text);
  const have = await vscode.workspace.fs.readFile(uri);
  if (have.length === want.length && have.every((b, i) => b === want[i])) return;
  log.info(`${vscode.workspace.asRelativePath(uri)}: the editor changed the line endings; writing the checkpoint's bytes`);
  await vscode.workspace.fs.writeFile(uri, want);
}
