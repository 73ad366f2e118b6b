import * as vscode from 'vscode';
import { stateWords } from '../../model/run-states';
import type { RunResult } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import type { Run } from '../../model';
import { withRunProgress } from './run-progress';
import type { RunService } from './run-service';

/** "Resume Run": a run that stopped before an exit state (reload, crash) or was cancelled goes on from its last committed step. */
export function registerResumeRun(service: RunService, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.resumeRun', async (runId?: string): Promise<RunResult | undefined> => {
    const id = typeof runId === 'string' ? runId : (await pickRun(await service.unfinishedRuns(), 'Resume Run', 'There is no stopped or cancelled run to resume in this workspace.'))?.id;
    if (!id) return undefined;
    return withRunProgress(service, 'Ideal State: resumed run', log, (onStarted) => service.resume(id, onStarted));
  });
}

/** "Cancel Run": the active runs stop at their next safe point; their state is kept for Resume Run. */
export function registerCancelRun(service: RunService): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.cancelRun', async (): Promise<number> => {
    const active = service.activeRuns();
    if (active.length === 0) {
      void vscode.window.showInformationMessage('Ideal State: no run is going in this window.');
      return 0;
    }
    let target: string | undefined;
    if (active.length > 1) {
      const picked = await vscode.window.showQuickPick(
        active.map((c) => ({ label: firstLine(c.request), description: `${c.effort} · ${c.phase}`, runId: c.runId })),
        { title: 'Ideal State: Cancel Run', placeHolder: 'Which run should stop?' },
      );
      if (!picked) return 0;
      target = picked.runId;
    } else {
      target = active[0]!.runId;
    }
    return service.cancel(target);
  });
}

export async function pickRun(runs: readonly Run[], title: string, none: string): Promise<Run | undefined> {
  if (runs.length === 0) {
    void vscode.window.showInformationMessage(`Ideal State: ${none}`);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    runs.map((r) => ({ label: firstLine(r.request), description: `${r.effort} · ${stateWords(r.state)} · ${r.phase} · iteration ${r.iteration}`, detail: `${r.id} · started ${new Date(r.createdAt).toLocaleString()}`, run: r })),
    { title: `Ideal State: ${title}`, placeHolder: 'Which run?', matchOnDetail: true },
  );
  return picked?.run;
}

function firstLine(text: string): string {
  const line = text.split(/\r?\n/)[0]!;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
