import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import { LoopMatrices } from '../isc-table/loop-matrices';
import { EditorLoopEngine, type LoopEngineHosts } from './loop-engine';
import { LoopService } from './loop-service';
import { registerLoopStatusBar } from './loop-status-bar';
import { registerRunLoop } from './run-loop-command';

export interface LoopSupport extends vscode.Disposable {
  readonly service: LoopService;
  readonly matrices: LoopMatrices;
  /** The loop engine of this window (its test hook answers the loops' approvals). */
  readonly engine: EditorLoopEngine;
}

/** Loop mode in the editor: "Run Algorithm over Files…", its matrix, its status bar item, Cancel/Resume Loop. */
export function registerLoopSupport(context: vscode.ExtensionContext, hosts: LoopEngineHosts, log: Logger): LoopSupport {
  const loopEngine = new EditorLoopEngine(hosts, log);
  const service = new LoopService(loopEngine, log);
  const matrices = new LoopMatrices(context.extensionUri, service, log.child('matrix'));
  const disposable = vscode.Disposable.from(
    service,
    matrices,
    registerRunLoop(service, hosts.definitions, (loopId, beside) => matrices.open(loopId, { beside }), log),
    registerLoopStatusBar(service),
  );
  return { service, matrices, engine: loopEngine, dispose: () => disposable.dispose() };
}
