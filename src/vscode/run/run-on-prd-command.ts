import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunResult } from '../../algorithm/engine';
import type { Logger } from '../../model/log';
import type { AnyCriterion, EffortLevel } from '../../model';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import { withRunProgress } from './run-progress';
import type { RunService } from './run-service';

/**
 * "Ideal State: Run Algorithm on This PRD" — the PRD's criteria are the spec: the run keeps
 * them as written (OBSERVE may add INFERRED ones, never drop or reword them), at the PRD's
 * effort level, and keeps the PRD itself current.
 */
export function registerRunOnPrd(service: RunService, definitions: DefinitionsHost, log: Logger): vscode.Disposable {
  return vscode.commands.registerCommand('idealState.runOnPrd', async (target?: vscode.Uri): Promise<RunResult | undefined> => {
    const uri = target instanceof vscode.Uri ? target : vscode.window.activeTextEditor?.document.uri;
    const folder = uri && vscode.workspace.getWorkspaceFolder(uri);
    if (!uri || !folder || uri.scheme !== 'file') {
      void vscode.window.showWarningMessage('Ideal State: open a PRD of this workspace (a markdown file with `prd: true`) and run the command again.');
      return undefined;
    }
    const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    const document = await vscode.workspace.openTextDocument(uri);
    if (document.isDirty) await document.save();
    const prd = engine().parsePrd(document.getText());
    const errors = prd.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      void vscode.window.showErrorMessage(`Ideal State: ${relative}:${errors[0]!.range.start.line + 1}: ${errors[0]!.message}. Fix the PRD's errors (see the Problems panel) and run again.`);
      return undefined;
    }
    const now = new Date().toISOString();
    const criteria: AnyCriterion[] = [];
    for (const c of prd.criteria) {
      const converted = engine().toCoreCriterion(c, now);
      if (!converted.ok) {
        void vscode.window.showErrorMessage(`Ideal State: ${relative}:${c.line + 1}: ${converted.message}`);
        return undefined;
      }
      criteria.push(converted.criterion);
    }
    if (criteria.length === 0) {
      void vscode.window.showWarningMessage(`Ideal State: ${relative} has no criteria yet. Add some under "## Ideal State Criteria", or use Run Algorithm at Effort… to have the run write them.`);
      return undefined;
    }
    const table = (await definitions.get()).effort.table;
    const resolved = engine().prdEffort(prd.meta.effort, table);
    if (resolved.warning) log.warn(`${relative}: effort_level ${resolved.warning}`);
    const effort: EffortLevel = resolved.level;
    const request = prd.title?.text.trim() || relative;
    // The PRD's max_iterations replaces the level's, as on the command line (`ideal-state run --prd`).
    const maxIterations = prd.meta.maxIterations;
    if (maxIterations === 0) {
      void vscode.window.showErrorMessage(`Ideal State: ${relative}: max_iterations: 0 cannot be honoured, a run verifies at least once; write 1, or leave it out for the effort level's.`);
      return undefined;
    }
    return withRunProgress(service, `Ideal State: ${effort} run on ${path.basename(relative)}`, log, (onStarted) => service.start({ request, effort, prd: { path: relative, criteria, ...(maxIterations !== undefined ? { maxIterations } : {}) } }, onStarted));
  });
}
