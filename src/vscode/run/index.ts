import * as vscode from 'vscode';
import type { SessionsHost } from '../runs/sessions-host';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { DefinitionsHost } from '../definitions-host';
import type { ModelsHost } from '../models/models-host';
import type { StoreHost } from '../store-host';
import { EditorTaskRunner } from '../verify/task-runner';
import { registerDecideApproval } from './decide-approval-command';
import { ProposalDocuments } from './proposal-documents';
import { registerRunAlgorithm } from './run-algorithm-command';
import { registerRunOnPrd } from './run-on-prd-command';
import { RunService } from './run-service';
import { registerRunStatusBar } from './run-status-bar';
import { registerUndoRunChanges } from './undo-run-changes';
import type { ProcessesHost } from '../processes-host';

/** The Algorithm in the editor: its commands, the run status bar item, and the service that owns runs. */
export function registerRuns(hosts: { settings: Settings; definitions: DefinitionsHost; stores: StoreHost; models: ModelsHost; sessions: SessionsHost; processes: ProcessesHost }, log: Logger): { disposable: vscode.Disposable; service: RunService; proposals: ProposalDocuments; tasks: EditorTaskRunner } {
  const proposals = new ProposalDocuments();
  const tasks = new EditorTaskRunner(log.child('tasks'));
  const service = new RunService(hosts.settings, hosts.definitions, hosts.stores, hosts.models, tasks, hosts.processes, proposals, hosts.sessions, log);
  const disposable = vscode.Disposable.from(
    proposals,
    service,
    registerRunAlgorithm(service, hosts.definitions, log),
    registerRunOnPrd(service, hosts.definitions, log),
    registerDecideApproval(service),
    registerUndoRunChanges(service, hosts.stores, log),
    registerRunStatusBar(service),
  );
  // The proposals and tasks are shared with loop mode's sub-runs (src/vscode/loop).
  return { disposable, service, proposals, tasks };
}
