import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { engine } from '../engine';

/** A PRD as the person sees it: its workspace folder, and the file. */
export interface PrdInView {
  folder: vscode.WorkspaceFolder;
  /** Absolute, or relative to the folder. */
  file: string;
}

/** The PRD of the run whose ISC table has the focus, undefined when none has (set by whoever shows the tables). */
export type RunInView = () => PrdInView | undefined | Promise<PrdInView | undefined>;

/**
 * The PRD the person is looking at: the file of the active tab — a PRD or an ISA in a text
 * editor or in the PRD editor — when it has criteria; else the PRD of the run whose ISC table
 * has the focus. Undefined when neither: the person is then asked which.
 */
export async function prdInView(runInView: RunInView | undefined): Promise<PrdInView | undefined> {
  const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
  const uri = input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom ? input.uri : vscode.window.activeTextEditor?.document.uri;
  if (uri?.scheme === 'file') {
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (folder && (await hasCriteria(uri))) return { folder, file: uri.fsPath };
  }
  return input instanceof vscode.TabInputWebview ? await runInView?.() : undefined;
}

/** Whether the file is a PRD or an ISA with criteria, as the editor holds it (unsaved text too) or as it is on disk. */
async function hasCriteria(uri: vscode.Uri): Promise<boolean> {
  if (!uri.fsPath.toLowerCase().endsWith('.md')) return false;
  const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  const text = open ? open.getText() : await fs.readFile(uri.fsPath, 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  const gate = engine();
  if (gate.recogniseFormat(text, path.basename(uri.fsPath)) === 'isa') return gate.checkIsa(text).document.claims.length > 0;
  return gate.parsePrd(text).criteria.length > 0;
}
