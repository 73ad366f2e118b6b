import * as vscode from 'vscode';
import { loopBudgetText, loopStatusText } from './loop-view';
import type { LoopService } from './loop-service';

/**
 * While a loop goes: "$(sync~spin) Loop 7/12 passing · 42% budget". It follows the loop's
 * progress (no timer: every acknowledged artifact result is a change); clicking opens the
 * loop's matrix.
 */
export function registerLoopStatusBar(service: LoopService): vscode.Disposable {
  // Left of the run item (priority 1), so a loop and one of its sub-runs both show.
  const item = vscode.window.createStatusBarItem('idealState.loop', vscode.StatusBarAlignment.Left, 2);
  item.name = 'Ideal State: Loop';
  const render = () => {
    const going = service.activeLoops();
    const loop = going[going.length - 1];
    if (!loop) return item.hide();
    item.text = `$(sync~spin) ${loopStatusText(loop)}${going.length > 1 ? ` (+${going.length - 1})` : ''}`;
    item.tooltip = `Ideal State loop ${loop.loopId}: ${loop.title}\niteration ${loop.iteration} · ${loop.passing} of ${loop.total} artifacts pass · ${loopBudgetText(loop)}\nClick to open its artifacts × criteria matrix.`;
    item.command = { command: 'idealState.openLoopMatrix', title: 'Open Loop Matrix', arguments: [loop.loopId] };
    item.show();
  };
  return vscode.Disposable.from(item, service.onDidChangeLoop(render));
}
