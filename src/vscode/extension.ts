import * as vscode from 'vscode';
import { createApi, lockTestHooks, type IdealStateApi, type PublicIdealStateApi } from './api';
import { registerListIscDefinitions } from './commands/list-isc-definitions';
import { registerLearningSupport } from './learning';
import { registerSelectModel } from './commands/select-model';
import { registerSetApiKey } from './commands/set-api-key';
import { registerShowEffortLevels } from './commands/show-effort-levels';
import { registerShowStoreInfo } from './commands/show-store-info';
import { DefinitionsHost } from './definitions-host';
import { engineLoaded } from './engine';
import { ChannelLogger } from './log';
import { registerCheckModel } from './models/check-model-command';
import { ModelsHost } from './models/models-host';
import { PrdSync, registerPrdSupport } from './prd';
import { ProcessesHost } from './processes-host';
import { registerRestrictedModeIndicator } from './restricted-mode';
import { registerRuns } from './run';
import { bridgeRunsToLearning } from './learning/run-bridge';
import { EditorSettings } from './settings';
import { SessionsHost } from './runs/sessions-host';
import { StoreHost } from './store-host';
import { registerVerify } from './verify';
import { registerRunsSupport } from './runs';
import { registerAgentSupport } from './agents';
import { registerLoopSupport } from './loop';
import { registerLockSupport } from './lock';
import { registerGateInstall } from './gate-install';
import { registerDashboard } from './dashboard';

let stores: StoreHost | undefined;

export function activate(context: vscode.ExtensionContext): IdealStateApi | PublicIdealStateApi {
  const started = performance.now();
  const channel = vscode.window.createOutputChannel('Ideal State', { log: true });
  const log = new ChannelLogger(channel);
  const settings = new EditorSettings();
  stores = new StoreHost(context, settings, log.child('store'));
  const definitions = new DefinitionsHost(context, settings, log.child('definitions'));
  const models = new ModelsHost(context, settings, log.child('models'), stores);
  // The single writer of this window's runs (src/app/run-sessions.ts); every view follows its deltas.
  const sessions = new SessionsHost(stores);
  // Where the window's checks start their processes: a small process beside the extension host, from the first check on.
  const processes = new ProcessesHost(context.extensionPath, log.child('processes'));
  const learning = registerLearningSupport(context, stores, models, settings, log.child('learning'));
  const verify = registerVerify(context, { settings, definitions, stores, models, sessions, processes }, log.child('verify'));
  const runs = registerRuns({ settings, definitions, stores, models, sessions, processes }, log.child('run'));
  // Loop mode: the Algorithm over many files, its sub-runs on this window's single-writer path (src/vscode/loop).
  const loops = registerLoopSupport(context, { settings, definitions, stores, models, sessions, runs: runs.service, proposals: runs.proposals, tasks: runs.tasks, processes }, log.child('loop'));
  // The criteria lock from the editor: Lock Criteria, Approve Criteria Changes, the ISC table's badge and buttons.
  const locks = registerLockSupport(context, log.child('lock'));
  const tables = registerRunsSupport(context, { stores, definitions, verifier: verify.verifier, learning, service: runs.service, sessions, staleness: verify.staleness, loops: loops.service, locks }, log.child('runs'));

  context.subscriptions.push(
    channel,
    stores,
    sessions,
    definitions,
    processes,
    vscode.commands.registerCommand('idealState.showLog', () => log.show()),
    registerShowStoreInfo(stores),
    registerListIscDefinitions(definitions),
    registerShowEffortLevels(definitions, settings),
    registerSetApiKey(models),
    registerSelectModel(models, settings),
    registerCheckModel(models, log),
    registerRestrictedModeIndicator(log),
    learning,
    registerPrdSupport(context, stores, definitions, settings, sessions, log.child('prd')),
    verify.disposable,
    runs.disposable,
    tables,
    locks,
    loops,
    bridgeRunsToLearning(runs.service, learning.host),
    registerAgentSupport(context, { verifier: verify.verifier, stores, definitions, log: log.child('agents') }),
    registerGateInstall(context, log.child('gate-install')),
    registerDashboard(context, stores, log.child('dashboard')),
  );

  log.info(`activated in ${(performance.now() - started).toFixed(1)} ms, ${engineLoaded() ? 'engine bundle loaded' : 'engine bundle not loaded'}`);
  // Test hooks (answering approvals, Restricted Mode, the store) only for the extension's own tests.
  const testing = context.extensionMode === vscode.ExtensionMode.Test;
  const api = createApi(stores, definitions, models, new PrdSync(log.child('prd')), learning, verify.tests, runs.service, tables, loops, testing);
  return testing ? { ...api, lock: lockTestHooks(locks) } : api;
}

export async function deactivate(): Promise<void> {
  // Every commit is already durable; closing folds the journal and releases the writer lock.
  const host = stores;
  stores = undefined;
  await host?.close();
}
