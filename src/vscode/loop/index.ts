import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { DefinitionsHost } from '../definitions-host';
import { LoopMatrices } from '../isc-table/loop-matrices';
import { LoopService, type LoopEngineCalls } from './loop-service';
import { registerLoopStatusBar } from './loop-status-bar';
import { registerRunLoop } from './run-loop-command';

export interface LoopSupport extends vscode.Disposable {
  readonly service: LoopService;
  readonly matrices: LoopMatrices;
}

/** Loop mode in the editor: "Run Algorithm over Files…", its matrix, its status bar item, Cancel/Resume Loop. */
export function registerLoopSupport(context: vscode.ExtensionContext, hosts: { definitions: DefinitionsHost; calls: LoopEngineCalls }, log: Logger): LoopSupport {
  const service = new LoopService(hosts.calls, log);
  const matrices = new LoopMatrices(context.extensionUri, service, log.child('matrix'));
  const disposable = vscode.Disposable.from(
    service,
    matrices,
    registerRunLoop(service, hosts.definitions, (loopId, beside) => matrices.open(loopId, { beside }), log),
    registerLoopStatusBar(service),
  );
  return { service, matrices, dispose: () => disposable.dispose() };
}
