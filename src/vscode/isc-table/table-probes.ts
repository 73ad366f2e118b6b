import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Run } from '../../model';
import { engine } from '../engine';

/**
 * The criteria of a run's PRD whose check passed before any work (a "Probe" note under them)
 * — written by the run's own probe when it accepted them or by a person's lock —
 * for the ISC table's marker. The PRD is the one place both write, so the table reads it there.
 * No PRD, one outside the open folders, or one that cannot be read: nothing is marked.
 */
export async function probedOf(run: Pick<Run, 'prdPath' | 'workspaceFolder'>): Promise<ReadonlySet<string>> {
  if (!run.prdPath) return new Set();
  const folders = vscode.workspace.workspaceFolders ?? [];
  const folder = folders.find((f) => f.name === run.workspaceFolder) ?? folders[0];
  if (!folder) return new Set();
  const uri = path.isAbsolute(run.prdPath) ? vscode.Uri.file(run.prdPath) : vscode.Uri.joinPath(folder.uri, ...run.prdPath.split('/'));
  let text: string;
  try {
    text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch {
    return new Set();
  }
  // Most PRDs carry no note: no parse for them.
  // The parse is the engine's (zod and yaml), loaded only for a PRD that has a note.
  return new Set(/^[ \t]{2,}[-*+][ \t]+Probe[ \t]*:/im.test(text) ? engine().probedIds(text) : []);
}
