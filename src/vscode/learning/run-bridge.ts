import * as vscode from 'vscode';
import { runStateIs } from '../../model/run-states';
import { describeError } from '../../model/errors';
import type { RunChange } from '../run/run-service';
import type { LearningHost } from './learning-host';

/** What the bridge needs of the run commands' RunService. */
export interface RunsToLearn {
  readonly onDidChangeRun: vscode.Event<RunChange>;
  activeRuns(): readonly RunChange[];
}

/**
 * Runs → learning in the editor: while a run goes the status bar leaves the rating figure
 * to the run; when one ends, its reflection is written (STANDARD and above, unless the
 * engine's learning port already wrote it) and the Ratings view and Reflections tree ask
 * again, so "How did this go?" is about the run that just finished.
 */
export function bridgeRunsToLearning(runs: RunsToLearn, host: LearningHost): vscode.Disposable {
  const ended = new Set<string>();
  return runs.onDidChangeRun((change) => {
    if (change.active) {
      ended.delete(change.runId);
      if (!host.isRunActive) host.setRunActive(true);
      return;
    }
    if (ended.has(change.runId)) return;
    ended.add(change.runId);
    void reflectOn(change, host).finally(() => host.setRunActive(runs.activeRuns().length > 0));
  });
}


async function reflectOn(change: RunChange, host: LearningHost): Promise<void> {
  // A cancelled run may be resumed; it is reflected on when it really ends.
  if (!runStateIs('final', change.state)) return;
  try {
    const service = await host.service();
    // The learning service's reflection has an author; the engine's own numbers-only one has none.
    if (service.reflectionOf(change.runId)?.author) return;
    const result = await service.reflectAfterRun(change.runId, await host.chosenModel());
    if (result) host.log.info(`${change.runId}: reflection by ${result.reflection.author ?? 'manager'}${result.fallbackReason ? ` (${result.fallbackReason})` : ''}`);
  } catch (error) {
    host.log.warn(`${change.runId}: the reflection after the run could not be written (${describeError(error)})`);
  }
}
