import * as vscode from 'vscode';
import { loopEndMessage } from '../run/progress-text';
import type { Logger } from '../../model/log';
import type { DefinitionsHost } from '../definitions-host';
import { askLoopInputs, LoopInputRefused, type LoopInputs } from './loop-inputs';
import { LoopStartError, type LoopResult, type LoopService } from './loop-service';
import { loopStatusText } from './loop-view';
import { stateWords } from '../../model/run-states';

/** For automation and tests: each argument given skips its prompt. */
export type RunLoopArgs = Partial<LoopInputs>;

/**
 * "Ideal State: Run Algorithm over Files…" — a glob, an ISC template, an effort level and
 * the number of agents, then the loop under a cancellable progress notification. In
 * Restricted Mode the loop verifies only and says so.
 */
export function registerRunLoop(service: LoopService, definitions: DefinitionsHost, open: (loopId: string, beside: boolean) => void, log: Logger): vscode.Disposable {
  const beside = (loopId: string) => open(loopId, true);
  return vscode.Disposable.from(
    vscode.commands.registerCommand('idealState.runLoop', async (args?: RunLoopArgs): Promise<LoopResult | undefined> => {
      const given = args !== null && typeof args === 'object' && !(args instanceof vscode.Uri) ? args : {};
      let inputs: LoopInputs | undefined;
      try {
        const loaded = await definitions.get();
        inputs = await askLoopInputs(given, loaded.effort.table, loaded.isc);
      } catch (error) {
        if (!(error instanceof LoopInputRefused)) throw error;
        void vscode.window.showErrorMessage(`Ideal State: ${error.message}`);
        return undefined;
      }
      if (!inputs) return undefined;
      if (!service.trusted()) void vscode.window.showWarningMessage('Ideal State: Restricted Mode — the loop verifies the files and reports; it edits nothing and runs no command. Trust the workspace to let it work the failing files.');
      const chosen = inputs;
      return withLoopProgress(service, `Ideal State: loop ${chosen.isc} over ${chosen.glob}`, log, beside, (onStarted) => service.start(chosen, onStarted));
    }),
    vscode.commands.registerCommand('idealState.resumeLoop', async (arg?: unknown): Promise<LoopResult | undefined> => {
      const loopId = loopIdOf(arg) ?? (await pickLoop(service, (l) => service.canResume(l), 'No stopped loop to resume.'));
      if (!loopId) return undefined;
      if (!service.trusted()) void vscode.window.showWarningMessage('Ideal State: Restricted Mode — the loop goes on verifying only; it edits nothing and runs no command.');
      return withLoopProgress(service, `Ideal State: loop ${loopId} resumed`, log, beside, (onStarted) => service.resume(loopId, onStarted));
    }),
    vscode.commands.registerCommand('idealState.cancelLoop', async (arg?: unknown): Promise<number> => {
      const loopId = loopIdOf(arg) ?? (await pickLoop(service, (l) => service.isGoing(l.loopId), 'No loop is going in this window.'));
      return loopId ? service.cancel(loopId) : 0;
    }),
    vscode.commands.registerCommand('idealState.openLoopMatrix', async (arg?: unknown): Promise<void> => {
      const loopId = loopIdOf(arg) ?? (await pickLoop(service, () => true, 'There is no loop in this workspace yet: "Ideal State: Run Algorithm over Files…" starts one.'));
      if (loopId) open(loopId, false);
    }),
  );
}

/** A loop id given as a string, or a Runs view loop node. */
function loopIdOf(arg: unknown): string | undefined {
  if (typeof arg === 'string' && arg) return arg;
  if (arg && typeof arg === 'object' && (arg as { kind?: string }).kind === 'loop') return (arg as { loop: { id: string } }).loop.id;
  return undefined;
}

async function pickLoop(service: LoopService, which: (l: { loopId: string; state: string }) => boolean, none: string): Promise<string | undefined> {
  const loops = (await service.list()).map((l) => ({ loopId: l.id, state: l.state, label: `Loop ${l.passing}/${l.total} passing · ${l.title}`, description: `${stateWords(l.state)} · ${l.id}` })).filter(which);
  if (loops.length === 0) {
    void vscode.window.showInformationMessage(`Ideal State: ${none}`);
    return undefined;
  }
  return (await vscode.window.showQuickPick(loops, { title: 'Ideal State: which loop?' }))?.loopId;
}

/** The loop under a cancellable notification that follows its progress, then how it ended. */
async function withLoopProgress(service: LoopService, title: string, log: Logger, open: (loopId: string) => void, start: (onStarted: (loopId: string) => void) => Promise<LoopResult>): Promise<LoopResult | undefined> {
  let loopId: string | undefined;
  let result: LoopResult;
  try {
    result = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
      const subscriptions = [
        token.onCancellationRequested(() => service.cancel(loopId)),
        service.onDidChange((change) => {
          if (change.loopId === loopId && change.active) progress.report({ message: `${loopStatusText(change)} · iteration ${change.iteration}` });
        }),
      ];
      try {
        return await start((id) => {
          loopId = id;
          // The matrix opens beside the editor as soon as the loop has an id, without taking focus.
          open(id);
          if (token.isCancellationRequested) service.cancel(id);
        });
      } finally {
        for (const s of subscriptions) s.dispose();
      }
    });
  } catch (error) {
    // A spec the loop engine refused (code LOOP_BAD_INPUT, e.g. the demo model) says why and what to do.
    const message = error instanceof LoopStartError || (error as { code?: unknown } | undefined)?.code === 'LOOP_BAD_INPUT' ? (error as Error).message : `the loop stopped with an error: ${error instanceof Error ? error.message : String(error)}. The log has the details.`;
    log.error(`loop failed to start or stopped: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    void vscode.window.showErrorMessage(`Ideal State: ${message}`);
    return undefined;
  }
  const text = loopEndMessage(result);
  const show = result.state === 'COMPLETE' ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
  void show(text, 'Open Matrix').then((answer) => answer && open(result.loopId));
  return result;
}
