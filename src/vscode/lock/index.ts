import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import { CriteriaLocks, type LockActResult } from './criteria-locks';
import { LockDialogs } from './lock-dialogs';
import { LockOffers } from './lock-offer';
import { prdInView } from './lock-target';

export { CriteriaLocks, type LockActResult, type PrdLockState } from './criteria-locks';
export { LockDialogs, type LockAnswerer, type LockQuestion } from './lock-dialogs';
export { LockOffers } from './lock-offer';
export type { PrdInView, RunInView } from './lock-target';

export interface LockSupport extends vscode.Disposable {
  readonly locks: CriteriaLocks;
  readonly offers: LockOffers;
}

/**
 * What the commands take: a PRD (a workspace-relative path or a file Uri, or several Uris), or
 * nothing: Lock Criteria then locks the PRD in view (prdInView), else the one unfinished PRD,
 * else asks which; Approve Criteria Changes approves every change since the lock.
 */
type LockArg = { prdPath?: string } | vscode.Uri | undefined;
type LockTarget = { folder?: vscode.WorkspaceFolder; files?: string[] };

/** "Ideal State: Lock Criteria" and "Ideal State: Approve Criteria Changes". */
export function registerLockSupport(context: vscode.ExtensionContext, log: Logger): LockSupport {
  const locks = new CriteriaLocks(new LockDialogs(), context.globalStorageUri, log);
  const offers = new LockOffers(locks, context.globalState, log);
  const folderOf = (file?: vscode.Uri) => (file ? vscode.workspace.getWorkspaceFolder(file) : undefined) ?? vscode.workspace.workspaceFolders?.[0];
  const target = (arg: LockArg, selected?: readonly vscode.Uri[]): LockTarget => {
    if (arg instanceof vscode.Uri) return { folder: folderOf(arg), files: (selected && selected.length > 0 ? selected : [arg]).map((u) => u.fsPath) };
    if (arg && typeof arg === 'object' && typeof arg.prdPath === 'string') return { folder: folderOf(), files: [arg.prdPath] };
    return { folder: folderOf() };
  };
  /** Lock Criteria with nothing named: the PRD the person is looking at, when there is one. */
  const lockTarget = async (arg: LockArg, selected?: readonly vscode.Uri[]): Promise<LockTarget> => {
    const named = target(arg, selected);
    if (named.files) return named;
    const inView = await prdInView(locks.runInView);
    return inView ? { folder: inView.folder, files: [inView.file] } : named;
  };
  const report = (result: LockActResult): LockActResult => {
    if (result.ok) void vscode.window.showInformationMessage(`Ideal State: ${result.message}`);
    else void vscode.window.showWarningMessage(`Ideal State: ${result.message}`);
    return result;
  };
  const act = async (where: LockTarget | Promise<LockTarget>, what: (folder: string, files?: string[]) => Promise<LockActResult>): Promise<LockActResult> => {
    try {
      const { folder, files } = await where;
      if (!folder || folder.uri.scheme !== 'file') return report({ ok: false, message: 'Open the workspace folder whose criteria you want to lock.' });
      return report(await what(folder.uri.fsPath, files));
    } catch (error) {
      log.error(`the criteria lock failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      return report({ ok: false, message: `The criteria lock failed: ${error instanceof Error ? error.message : String(error)}. See the log (Ideal State: Show Log).` });
    }
  };
  const disposable = vscode.Disposable.from(
    locks,
    vscode.commands.registerCommand('idealState.lockCriteria', (arg?: LockArg, selected?: vscode.Uri[]) => act(lockTarget(arg, selected), (folder, files) => locks.lock(folder, files))),
    vscode.commands.registerCommand('idealState.approveCriteriaChanges', (arg?: LockArg, selected?: vscode.Uri[]) => act(target(arg, selected), (folder, files) => locks.approve(folder, files))),
  );
  return { locks, offers, dispose: () => disposable.dispose() };
}
