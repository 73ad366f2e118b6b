import * as vscode from 'vscode';
import type { RunResult } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import { describeProgress, PROGRESS_TICK_MS, runEndMessage } from './progress-text';
import type { RunProgress, RunService } from './run-service';
import { RunStartError } from './run-service';

/**
 * Runs `start` under a cancellable progress notification that follows the run's phases,
 * then says how it ended, with the PRD one click away. Output goes to the log channel.
 */
export async function withRunProgress(service: RunService, title: string, log: Logger, start: (onStarted: (runId: string) => void) => Promise<RunResult>): Promise<RunResult | undefined> {
  let runId: string | undefined;
  let result: RunResult | undefined;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      let shown = '';
      const report = () => {
        const now: RunProgress | undefined = service.activeRuns().find((c) => c.runId === runId);
        if (!now) return;
        const message = `${describeProgress(now)} · ${now.model}`;
        if (message !== shown) progress.report({ message: (shown = message) });
      };
      // Between the run's steps — a long phase, an approval waiting — its time still moves (or its wait does).
      const timer = setInterval(report, PROGRESS_TICK_MS);
      const subscriptions = [
        token.onCancellationRequested(() => (runId ? service.cancel(runId) : service.cancel())),
        service.onDidChangeRun((delta) => delta.kind === 'step' && delta.runId === runId && report()),
        { dispose: () => clearInterval(timer) },
      ];
      try {
        return await start((id) => {
          runId = id;
          if (token.isCancellationRequested) service.cancel(id);
        });
      } finally {
        for (const s of subscriptions) s.dispose();
      }
    });
  } catch (error) {
    // A start the engine refused (code run-refused) says why and what to do, like RunStartError.
    const message = error instanceof RunStartError || (error as { code?: unknown } | undefined)?.code === 'run-refused' ? (error as Error).message : `the run stopped with an error: ${error instanceof Error ? error.message : String(error)}. The log has the details.`;
    log.error(`run failed to start or stopped: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void vscode.window.showErrorMessage(`Ideal State: ${message}`);
    return undefined;
  }
  void announce(result, log);
  return result;
}

async function announce(result: RunResult, log: Logger): Promise<void> {
  const { text, good } = runEndMessage(result);
  log.info(`${result.run.id} ended ${result.state}: ${text}`);
  const buttons = [...(result.run.prdPath ? ['Open PRD'] : []), 'Show Log'];
  const show = good ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  const answer = await show(text, ...buttons);
  if (answer === 'Open PRD' && result.run.prdPath) {
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) await vscode.window.showTextDocument(vscode.Uri.joinPath(folder.uri, result.run.prdPath), { preview: false });
  } else if (answer === 'Show Log') {
    await vscode.commands.executeCommand('idealState.showLog');
  }
}
