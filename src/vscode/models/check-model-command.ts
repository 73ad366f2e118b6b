import * as path from 'node:path';
import * as vscode from 'vscode';
import { isCancellation } from '../../model/errors';
import type { Logger } from '../../model/log';
import type { EffortLevel } from '../../model';
import type { CheckOptions, CheckReport } from '../../llm/check-model';
import { engine } from '../engine';
import { workspaceTextFiles } from '../workspace-files';
import type { ModelsHost } from './models-host';

const SHOW_LOG = 'Show Log';

/** What the command takes from another command or a test: the effort level whose routes are checked. */
export interface CheckModelArgs {
  readonly level?: EffortLevel;
}

/**
 * "Ideal State: Check Model" — one tiny call of each shape the product makes on the model of
 * every role, resolved as a run resolves them (the models file, Select Model, keys): a
 * cancellable progress notification, the full report in the log, a one-line summary.
 * Resolves to the report (undefined when cancelled or in Restricted Mode).
 */
export function registerCheckModel(models: ModelsHost, log: Logger & { show(): void }): vscode.Disposable {
  const checkLog = log.child('check');
  return vscode.commands.registerCommand('idealState.checkModel', async (args?: CheckModelArgs): Promise<CheckReport | undefined> => {
    if (!vscode.workspace.isTrusted) {
      checkLog.info('Check Model: no calls in Restricted Mode');
      void vscode.window.showWarningMessage('Ideal State: Check Model calls your models with settings from this workspace, so it is off in Restricted Mode. Trust the workspace to check them.');
      return undefined;
    }
    const e = engine();
    const level: EffortLevel = args?.level && (e.EFFORT_LEVELS as readonly string[]).includes(args.level) ? args.level : 'STANDARD';
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: 'Ideal State: Check Model', cancellable: true },
      async (progress, token) => {
        const controller = new AbortController();
        const cancelled = token.onCancellationRequested(() => controller.abort());
        try {
          const { router } = await models.forRun(level);
          const { tierFor, temperatureOf } = await workspaceRoles(checkLog);
          return await e.checkModels(router.resolved, { level, tierFor, temperatureOf, signal: controller.signal, logger: checkLog, onProgress: (message) => progress.report({ message }) });
        } catch (error) {
          if (isCancellation(error)) {
            checkLog.info('Check Model was cancelled');
            return undefined;
          }
          // A models file that cannot be read, a routing that names no model: nothing was checked.
          const message = error instanceof Error ? error.message : String(error);
          checkLog.error(`Check Model could not start: ${message}`);
          void vscode.window.showErrorMessage(`Ideal State: Check Model could not start: ${message}`, SHOW_LOG).then((choice) => choice === SHOW_LOG && log.show());
          return undefined;
        } finally {
          cancelled.dispose();
        }
      },
    );
    if (!report) return undefined;
    const lines = e.formatCheckReport(report);
    for (const line of lines) (report.works ? checkLog.info : checkLog.warn).call(checkLog, line);
    const summary = e.summarizeCheck(report);
    const shown = report.works ? vscode.window.showInformationMessage(summary, SHOW_LOG) : vscode.window.showWarningMessage(summary, SHOW_LOG);
    void shown.then((choice) => choice === SHOW_LOG && log.show());
    return report;
  });
}

/** Each role's tier at a level (capabilities.yaml) and temperature (its role file), with the workspace's overrides, as a run reads them. */
async function workspaceRoles(log: Logger): Promise<Required<Pick<CheckOptions, 'tierFor' | 'temperatureOf'>>> {
  const e = engine();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
  const override = async (rel: string) => {
    if (!folder || folder.scheme !== 'file') return undefined;
    const text = await workspaceTextFiles.readText(path.join(folder.fsPath, rel));
    return text === undefined ? undefined : { file: rel, text };
  };
  const capabilities = e.loadCapabilities(await override(e.WORKSPACE_CAPABILITIES_FILE));
  const roleFiles = (await Promise.all(e.ROLE_IDS.map((id) => override(`${e.WORKSPACE_ROLES_DIR}/${id}.yaml`)))).filter((f) => f !== undefined);
  const roles = e.loadRoles(roleFiles);
  for (const p of [...capabilities.problems, ...roles.problems]) log.warn(`${p.file}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ''}${p.message}`);
  return {
    tierFor: (role, level) => capabilities.capabilities.levels[level]?.models[role],
    temperatureOf: (role) => roles.roles[role].policy.temperature,
  };
}
