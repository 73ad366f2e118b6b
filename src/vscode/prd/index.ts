import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import type { Settings } from '../../core/settings';
import type { DefinitionsHost } from '../definitions-host';
import { registerNewPrd } from './new-prd-command';
import { PrdDiagnostics } from './prd-diagnostics';
import { PrdQuickFixes } from './prd-quick-fixes';

/** PRD files in the editor: findings in the Problems panel, quick fixes, and "New PRD". */
export function registerPrdSupport(definitions: DefinitionsHost, settings: Settings, log: Logger): vscode.Disposable {
  const diagnostics = new PrdDiagnostics(definitions, log);
  return vscode.Disposable.from(
    diagnostics,
    vscode.languages.registerCodeActionsProvider({ language: 'markdown' }, new PrdQuickFixes(diagnostics), PrdQuickFixes.metadata),
    registerNewPrd(definitions, settings, log),
  );
}
