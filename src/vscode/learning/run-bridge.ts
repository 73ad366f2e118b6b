import * as vscode from 'vscode';
import { runStateIs } from '../../model/run-states';
import { describeError } from '../../model/errors';
import type { RunDelta } from '../../app/run-sessions';
import type { RunState } from '../../model';
import type { LearningHost } from './learning-host';

/** What the bridge needs of the run commands' RunService. */
export interface RunsToLearn {
  readonly onDidChangeRun: vscode.Event<RunDelta>;
  activeRuns(): readonly unknown[];
}

/**
 * Runs → learning in the editor: while a run goes the status bar leaves the rating figure
 * to the run; when one ends, its reflection is written (STANDARD and above, unless the
 * engine's learning port already wrote it) and the Ratings view and Reflections tree ask
 * again, so "How did this go?" is about the run that just finished.
 */
export function bridgeRunsToLearning(runs: RunsToLearn, host: LearningHost): vscode.Disposable {
  const ended = new Set<string>();
  return runs.onDidChangeRun((delta) => {
    // A loop's sub-run learns nothing on its own: the loop's work is not a run a person rates.
    if ((delta.kind !== 'step' && delta.kind !== 'ended') || delta.subRun) return;
    if (delta.kind === 'step') {
      ended.delete(delta.runId);
      if (!host.isRunActive) host.setRunActive(true);
      return;
    }
    if (ended.has(delta.runId)) return;
    ended.add(delta.runId);
    void reflectOn(delta, host).finally(() => host.setRunActive(runs.activeRuns().length > 0));
  });
}


async function reflectOn(change: { readonly runId: string; readonly state: RunState }, host: LearningHost): Promise<void> {
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
