import * as vscode from 'vscode';
import { isCancellation } from '../../model/errors';
import type { Logger } from '../../model/log';
import type { Outcome } from '../../model';
import { signalFrom } from './abort';
import { PrdVerifyError, type PrdVerification, type PrdVerifier } from './verify-prd';
import { outcomeLabel } from '../../model/labels';

/**
 * "Ideal State: Verify Criteria" — verifies the active PRD (or the one passed in), with a
 * progress notification that can be cancelled, and says how it went in one line.
 */
export function registerVerifyCommand(verifier: PrdVerifier, onVerified: (v: PrdVerification) => void, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.verifyCriteria', async (arg?: unknown): Promise<PrdVerification | undefined> => {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('Ideal State: Verify Criteria runs commands and tasks from the PRD, so it is off in Restricted Mode. Trust this workspace to verify its criteria.', 'Manage Workspace Trust').then((choice) => {
        if (choice) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return undefined;
    }
    const uri = arg instanceof vscode.Uri ? arg : vscode.window.activeTextEditor?.document.uri;
    if (!uri || !uri.path.endsWith('.md')) {
      void vscode.window.showWarningMessage('Ideal State: open a PRD (a markdown file with `prd: true` frontmatter) to verify its criteria.');
      return undefined;
    }
    const name = vscode.workspace.asRelativePath(uri);
    try {
      const verification = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Ideal State: verifying ${name}`, cancellable: true },
        async (progress, token) => {
          const abort = signalFrom(token);
          try {
            let done = 0;
            return await verifier.verify(uri, {
              signal: abort.signal,
              onResult: (result, criterion) => {
                done += 1;
                progress.report({ message: `${done} done · ${criterion.id} ${outcomeLabel(result.outcome)}` });
              },
            });
          } finally {
            abort.dispose();
          }
        },
      );
      onVerified(verification);
      const message = `Ideal State: ${summaryLine(verification)}`;
      if (verification.set.passed) void vscode.window.showInformationMessage(message);
      else void vscode.window.showWarningMessage(message);
      return verification;
    } catch (error) {
      if (isCancellation(error)) {
        void vscode.window.showInformationMessage(`Ideal State: verification of ${name} was cancelled; nothing was written.`);
        return undefined;
      }
      if (error instanceof PrdVerifyError) {
        void vscode.window.showErrorMessage(`Ideal State: ${error.message}`);
        return undefined;
      }
      log.error(`verifying ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      void vscode.window.showErrorMessage(`Ideal State: verifying ${name} failed: ${error instanceof Error ? error.message : String(error)}. See the log (Ideal State: Show Log).`);
      return undefined;
    }
  });
}

/** "4 passed, 1 failed, 1 unknown — not passing (ISC-3 is CRITICAL)". */
export function summaryLine({ set, criteria }: Pick<PrdVerification, 'set' | 'criteria'>): string {
  const words: Record<Outcome, string> = { PASS: 'passed', FAIL: 'failed', PARTIAL: 'partial', UNKNOWN: 'unknown' };
  const counts = (['PASS', 'FAIL', 'PARTIAL', 'UNKNOWN'] as const).filter((o) => set.counts[o] > 0).map((o) => `${set.counts[o]} ${words[o]}`);
  if (set.passed) return `${counts.join(', ')} — passing`;
  const blocking = set.results
    .filter((r) => r.outcome !== 'PASS')
    .map((r) => criteria.find((c) => c.id === r.criterionId))
    .filter((c) => c?.priority === 'CRITICAL')
    .map((c) => c!.id);
  const why = blocking.length === 0 ? '' : ` (${blocking.slice(0, 3).join(', ')}${blocking.length > 3 ? ` and ${blocking.length - 3} more` : ''} ${blocking.length === 1 ? 'is' : 'are'} CRITICAL)`;
  return `${counts.join(', ')} — not passing${why}`;
}
