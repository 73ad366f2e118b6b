import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { EngineUpdate, MergeResult } from '../../prd';
import { engine } from '../engine';
import { replaceDocumentText } from './document-edits';

const ATTEMPTS = 3;

/**
 * Engine → file: merges an engine update into the PRD as it is now — the open, possibly
 * dirty document, not the file on disk — and applies it as one WorkspaceEdit, so it is
 * visible in every editor of the file and undoable, and the user's unsaved typing wins
 * where both changed the same thing. The document is left unsaved: saving stays the user's.
 */
export class PrdSync {
  constructor(private readonly log: Logger) {}

  async applyEngineUpdate(uri: vscode.Uri, update: EngineUpdate): Promise<MergeResult> {
    const document = await vscode.workspace.openTextDocument(uri);
    for (let attempt = 1; ; attempt++) {
      const version = document.version;
      const result = engine().mergeEngineUpdate(document.getText(), update);
      if (result.text === document.getText() || (await replaceDocumentText(document, result.text))) {
        const path = vscode.workspace.asRelativePath(uri);
        if (result.applied.length > 0) this.log.info(`${path}: engine update merged (${result.applied.length} change${result.applied.length === 1 ? '' : 's'})`);
        if (result.userWon.length > 0) this.log.info(`${path}: kept the user's text over the engine for ${result.userWon.join(', ')}`);
        return result;
      }
      // The user typed between reading and applying: merge again against the newer text.
      if (attempt >= ATTEMPTS || document.version === version) throw new Error(`the engine's update to ${vscode.workspace.asRelativePath(uri)} could not be applied`);
    }
  }
}
