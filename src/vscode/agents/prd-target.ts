import * as path from 'node:path';
import * as vscode from 'vscode';
import { engine } from '../engine';
import { ToolInputError } from './tool-text';

/** The PRD/ISA a tool works on, inside a workspace folder on disk. */
export interface PrdTarget {
  readonly uri: vscode.Uri;
  readonly folder: vscode.WorkspaceFolder;
  /** Workspace-relative, forward slashes. */
  readonly relative: string;
}

/**
 * The named PRD (workspace-relative or absolute), else the active editor's markdown file.
 * A path outside the workspace is refused before anything is read, and so is one inside
 * it that a symbolic link leads out of (the same confinement as the MCP server's and the
 * verifier's): tools act for the workspace only, whatever the model asks.
 */
export async function resolvePrdTarget(prd: string | undefined): Promise<PrdTarget> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  let uri: vscode.Uri;
  if (prd !== undefined) {
    if (folders.length === 0) throw new ToolInputError('no workspace folder on disk is open; open the folder of the PRD first');
    uri = path.isAbsolute(prd) ? vscode.Uri.file(path.normalize(prd)) : vscode.Uri.file(path.resolve(folders[0]!.uri.fsPath, prd));
  } else {
    const active = vscode.window.activeTextEditor?.document.uri;
    if (!active || !active.path.endsWith('.md')) throw new ToolInputError('no PRD named and the active editor is not a markdown PRD; pass "prd" with the path of a PRD or ISA in the workspace');
    uri = active;
  }
  const folder = folders.find((f) => isInside(f.uri.fsPath, uri.fsPath));
  if (!folder) throw new ToolInputError(`${prd ?? uri.fsPath} is outside the workspace; Ideal State's tools only read and verify PRDs inside the open workspace folders`);
  if (!uri.path.endsWith('.md')) throw new ToolInputError(`${prd ?? uri.fsPath} is not a markdown PRD or ISA (.md)`);
  const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
  const confined = await engine().confineOnDisk(folder.uri.fsPath, relative);
  if (!confined.ok) throw new ToolInputError(`refused: ${confined.reason} (${folder.uri.fsPath}); Ideal State's tools only read and verify PRDs inside the open workspace folders`);
  return { uri, folder, relative };
}

function isInside(root: string, file: string): boolean {
  const rel = path.relative(root, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
