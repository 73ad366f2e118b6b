import * as vscode from 'vscode';
import { verdictOf } from '../../model/verdict';
import { describeProgress, describeWait, PROGRESS_TICK_MS, statusVerdictText } from './progress-text';
import type { RunProgress, RunService } from './run-service';

const ISC_TABLE_COMMAND = 'idealState.openIscTable';

/**
 * While a run is going: "$(sync~spin) Ideal State: EXECUTE 2/3 · 45%" (phase, iteration of
 * the level's maximum, budget used), refreshed every second for the budget. Clicking it
 * opens the ISC table when that command exists, else the log.
 */
export function registerRunStatusBar(service: RunService): vscode.Disposable {
  const item = vscode.window.createStatusBarItem('idealState.run', vscode.StatusBarAlignment.Left, 1);
  item.name = 'Ideal State: Run';
  let timer: ReturnType<typeof setInterval> | undefined;
  let command = 'idealState.showLog';
  void vscode.commands.getCommands(true).then((all) => {
    if (all.includes(ISC_TABLE_COMMAND)) command = ISC_TABLE_COMMAND;
  });

  const render = () => {
    const active = service.activeRuns();
    if (active.length === 0) {
      item.hide();
      if (timer) clearInterval(timer);
      timer = undefined;
      return;
    }
    const run = active[active.length - 1]!;
    // Waiting for a person: no spinner, the run is not working; the wait is not in the percent.
    const icon = run.budget.waitingMs !== undefined ? '$(bell)' : '$(sync~spin)';
    item.text = `${icon} Ideal State: ${describeProgress(run)}${active.length > 1 ? ` (+${active.length - 1})` : ''}`;
    item.tooltip = tooltip(run);
    item.command = { command, title: 'Show the run', arguments: command === ISC_TABLE_COMMAND ? [run.runId] : [] };
    item.show();
    timer ??= setInterval(render, PROGRESS_TICK_MS);
  };

  // Any change to a run (a step, its end) renders again; between them the timer moves the budget on.
  return vscode.Disposable.from(item, service.onDidChangeRun(render), { dispose: () => timer && clearInterval(timer) });
}

function tooltip(run: RunProgress): vscode.MarkdownString {
  const verdict = verdictOf(run.criteria);
  const md = new vscode.MarkdownString(undefined, false);
  md.appendText(`Ideal State run at ${run.effort} · ${run.model}\n`);
  md.appendText(`${run.phase}, iteration ${run.iteration}${run.maxIterations ? ` of ${run.maxIterations}` : ' (no iteration limit: until the budget is spent)'} · ${run.budget.percent}% of ${run.budget.seconds} s\n`);
  if (run.budget.waitingMs !== undefined) {
    const approval = (run.budget.waitingFor ?? 'approval') === 'approval';
    md.appendText(approval ? `Waiting for your approval for ${describeWait(run.budget.waitingMs)}: "Ideal State: Approve or Deny Pending Changes…" or the ISC table answers it.\n` : `Waiting for ${run.budget.waitingFor} for ${describeWait(run.budget.waitingMs)}: answer the question at the top of the window.\n`);
  }
  if (run.budget.waitedMs > 0) md.appendText(`${describeWait(run.budget.waitedMs)} waiting for you so far, not counted against the budget\n`);
  md.appendText(`${statusVerdictText(verdict)}\n`);
  md.appendText('Click to show the run; "Ideal State: Cancel Run" stops it.');
  return md;
}
