import * as vscode from 'vscode';
import type { SessionsHost } from '../runs/sessions-host';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { DefinitionsHost } from '../definitions-host';
import type { StoreHost } from '../store-host';
import { registerNewPrd } from './new-prd-command';
import { PrdDiagnostics } from './prd-diagnostics';
import { PrdEditorProvider, registerOpenPrdEditor } from './prd-editor-provider';
import { PrdQuickFixes } from './prd-quick-fixes';
import { PrdStoreSyncOnSave } from './prd-store-sync';

export { PrdSync } from './prd-sync';

/** PRD files in the editor: findings and quick fixes, "New PRD", the PRD editor, and sync with the store on save. */
export function registerPrdSupport(context: vscode.ExtensionContext, stores: StoreHost, definitions: DefinitionsHost, settings: Settings, sessions: SessionsHost, log: Logger): vscode.Disposable {
  const diagnostics = new PrdDiagnostics(definitions, log);
  const storeSync = new PrdStoreSyncOnSave(stores, definitions, sessions, log);
  return vscode.Disposable.from(
    diagnostics,
    storeSync,
    vscode.languages.registerCodeActionsProvider({ language: 'markdown' }, new PrdQuickFixes(diagnostics), PrdQuickFixes.metadata),
    registerNewPrd(definitions, settings, log),
    PrdEditorProvider.register(context.extensionUri, storeSync, log.child('editor')),
    registerOpenPrdEditor(),
  );
}
