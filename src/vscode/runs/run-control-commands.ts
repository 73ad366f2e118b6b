import * as vscode from 'vscode';
import type { RunResult } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import { runStateIs, stateWords } from '../../model/run-states';
import { withRunProgress } from '../run/run-progress';
import type { RunService } from '../run/run-service';
import type { StoreHost } from '../store-host';
import { pickRun, runChoice } from './pick-run';
import type { RunControl } from './run-control';
import type { RunWatch } from './run-watch';
import { recordKind } from './runs-tree-model';

interface Deps {
  service: RunService;
  stores: StoreHost;
  control: RunControl;
  watch: RunWatch;
  log: Logger;
}

/**
 * Cancel Run and Resume Run, from the palette and from a Runs view item or the ISC table:
 * one place that says which runs can stop or go on, and one pick when no run is named.
 */
export function registerRunControl(deps: Deps): vscode.Disposable {
  const { service, control, watch } = deps;
  const report = (result: { ok: boolean; message: string }) => {
    if (result.ok) void vscode.window.showInformationMessage(`Ideal State: ${result.message}`);
    else void vscode.window.showWarningMessage(`Ideal State: ${result.message}`);
    return result;
  };
  const storedRuns = async (keep: (run: import('../../model').Run, steps: () => number) => boolean) => {
    const store = await deps.stores.get();
    return store.runs
      .list()
      .filter((r) => keep(r, () => store.steps.count('run_id = ?', [r.id])))
      .map(runChoice);
  };

  return vscode.Disposable.from(
    // The palette's Resume Run: a run that stopped before an exit state (reload, crash) or was cancelled goes on from its last committed step.
    vscode.commands.registerCommand('idealState.resumeRun', async (runId?: string): Promise<RunResult | undefined> => {
      const id = await pickRun('Resume Run', typeof runId === 'string' ? runId : undefined, async () => (await service.unfinishedRuns()).map(runChoice), 'There is no stopped or cancelled run to resume in this workspace.');
      if (!id) return undefined;
      return withRunProgress(service, 'Ideal State: resumed run', deps.log, (onStarted) => service.resume(id, onStarted));
    }),
    // The palette's Cancel Run: the run going in this window stops at its next safe point (asked which, when several); its state is kept for Resume Run.
    vscode.commands.registerCommand('idealState.cancelRun', async (): Promise<number> => {
      const active = service.activeRuns();
      if (active.length === 0) {
        void vscode.window.showInformationMessage('Ideal State: no run is going in this window.');
        return 0;
      }
      const target = active.length === 1 ? active[0]!.runId : await pickRun('Cancel Run', undefined, () => active.map((c) => ({ id: c.runId, request: c.request, description: `${c.effort} · ${c.phase}` })), 'no run is going in this window.');
      return target ? service.cancel(target) : 0;
    }),
    vscode.commands.registerCommand('idealState.cancelRunInView', async (arg?: unknown) => {
      const runId = await pickRun('Cancel Run', arg, () => storedRuns((r) => runStateIs('going', r.state)), 'no run is going in this workspace.');
      if (!runId) return undefined;
      const result = report(await control.cancel(runId));
      watch.touch(runId);
      return result;
    }),
    vscode.commands.registerCommand('idealState.resumeRunInView', async (arg?: unknown) => {
      const runId = await pickRun('Resume Run', arg, () => storedRuns((r, steps) => runStateIs('resumable', r.state) && !recordKind(r, { steps: steps(), reports: 0 })), 'there is no stopped or cancelled run to resume in this workspace.');
      if (!runId) return undefined;
      const store = await deps.stores.get();
      const run = store.runs.get(runId);
      const record = run && recordKind(run, { steps: store.steps.count('run_id = ?', [run.id]), reports: store.reports.count('run_id = ?', [run.id]) });
      const result = !run
        ? { ok: false, message: `there is no run ${runId} in this workspace's store.` }
        : record
          ? { ok: false, message: `${runId} is a ${record === 'verification' ? 'verification' : 'PRD saved outside a run'}, finished as it is: there is no run to resume. "Ideal State: Run Algorithm on This PRD" starts one.` }
          : !control.canResume(run)
            ? { ok: false, message: `${runId} is ${stateWords(run.state)}${runStateIs('going', run.state) ? ' and going in this window' : ''}; only a run that stopped on the way or was cancelled can be resumed.` }
            : await control.resume(runId);
      report(result);
      watch.touch(runId);
      return result;
    }),
  );
}
