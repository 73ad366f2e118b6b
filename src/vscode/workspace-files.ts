import * as vscode from 'vscode';
import type { TextFiles } from '../model/definitions';

/** TextFiles through `vscode.workspace.fs`, so remote and virtual file systems work too. */
export const workspaceTextFiles: TextFiles = {
  async readText(path) {
    try {
      return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(vscode.Uri.file(path)));
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return undefined;
      throw error;
    }
  },
  async listYaml(dir) {
    try {
      const entries = await vscode.workspace.fs.readDirectory(vscode.Uri.file(dir));
      return entries
        .filter(([name, type]) => type === vscode.FileType.File && /\.ya?ml$/.test(name))
        .map(([name]) => vscode.Uri.joinPath(vscode.Uri.file(dir), name).fsPath)
        .sort();
    } catch (error) {
      if (error instanceof vscode.FileSystemError && error.code === 'FileNotFound') return [];
      throw error;
    }
  },
};

/** Opens a workspace file in an editor, first writing `example` to it if it does not exist yet. */
export async function openOrCreate(uri: vscode.Uri, example: string): Promise<void> {
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(example));
  }
  await vscode.window.showTextDocument(uri);
}
