import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { DefinitionsHost } from '../definitions-host';
import type { ProcessesHost } from '../processes-host';
import type { ModelsHost } from '../models/models-host';
import type { SessionsHost } from '../runs/sessions-host';
import type { StoreHost } from '../store-host';
import { CriteriaTests } from './criteria-tests';
import { RunJudgeSource } from './judge-source';
import { EditorTaskRunner } from './task-runner';
import { registerVerifyCommand } from './verify-command';
import { PrdVerifier } from './verify-prd';
import { RunStaleness } from './run-staleness';

/** Verification in the editor: "Verify Criteria", the criteria in the Testing view, and staleness of runs' results. */
export function registerVerify(
  context: vscode.ExtensionContext,
  hosts: { settings: Settings; definitions: DefinitionsHost; stores: StoreHost; models: ModelsHost; sessions: SessionsHost; processes: ProcessesHost },
  log: Logger,
): { disposable: vscode.Disposable; tests: CriteriaTests; verifier: PrdVerifier; staleness: RunStaleness } {
  const verifier = new PrdVerifier(context, hosts.settings, hosts.definitions, hosts.stores, new EditorTaskRunner(log.child('tasks')), new RunJudgeSource(hosts.models, log), hosts.sessions, hosts.processes, log);
  const tests = new CriteriaTests(verifier, log.child('tests'));
  const command = registerVerifyCommand(verifier, (v) => void tests.showVerification(v).catch((e: unknown) => log.error(`showing results in the Testing view failed: ${String(e)}`)), log);
  // Runs' PASS results that workspace changes make stale, for the ISC table and the Testing view.
  const staleness = new RunStaleness(hosts.stores, tests, log.child('staleness'));
  return { disposable: vscode.Disposable.from(tests, command, staleness), tests, verifier, staleness };
}
