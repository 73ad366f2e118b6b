import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CommandResult, SearchHit, WorkspaceTools } from '../../agent/workspace';
import type { ProcessRunner } from '../../verify/process-runner';
import { CancelledError } from '../../model/errors';
import { engine } from '../engine';

const SKIP = new Set(['.git', 'node_modules']);

/**
 * A specialist's workspace in the editor. Reads see open documents first, so the agent
 * works from what the user sees, unsaved text included. Edits and new files go through
 * `WorkspaceEdit`, so they are undoable and show in open editors; each affected document
 * is then saved, because the verifier reads files on disk and must see the agent's work.
 * (A file the user had unsaved changes in is saved too: the agent's edit was made on top
 * of that text, and "Undo Run Changes" restores the text as the agent first read it.)
 * Every path passes the lexical check and then the verification engine's on-disk check,
 * which follows symlinks, so a link out of the folder is refused too.
 */
export class EditorWorkspace implements WorkspaceTools {
  readonly root: string;

  constructor(
    readonly folder: vscode.Uri,
    private readonly ripgrepPath?: string,
    /** Where the agent's commands and searches start (the window's process host); this process when not given (undo). */
    private readonly processes?: ProcessRunner,
  ) {
    this.root = folder.fsPath;
  }

  async uriOf(requested: string): Promise<vscode.Uri> {
    const { confinePath, confineOnDisk, PathEscapeError } = engine();
    const relative = confinePath(requested);
    const confined = await confineOnDisk(this.root, relative);
    if (!confined.ok) throw new PathEscapeError(requested, confined.reason);
    return vscode.Uri.file(confined.absolute);
  }

  /** Where a write to `requested` really lands (symlinks followed), so a link to .git or .vscode counts as the folder itself. */
  landingPath(requested: string): Promise<string> {
    const { confinePath, landingPath } = engine();
    return landingPath(this.root, confinePath(requested));
  }

  /** A write's URI, refused inside .git however it is reached: a floor under the agent's tools, which refuse it first with the reason. */
  private async uriForWrite(requested: string): Promise<vscode.Uri> {
    const uri = await this.uriOf(requested);
    const { confinePath, isGitPath, PathEscapeError } = engine();
    if (isGitPath(confinePath(requested)) || isGitPath(await this.landingPath(requested))) throw new PathEscapeError(requested, '.git is not writable by the agent');
    return uri;
  }

  async readFile(requested: string): Promise<string | undefined> {
    const uri = await this.uriOf(requested);
    const open = openDocument(uri);
    if (open) return open.getText();
    try {
      return new TextDecoder('utf-8').decode(await vscode.workspace.fs.readFile(uri));
    } catch (error) {
      if (error instanceof vscode.FileSystemError && (error.code === 'FileNotFound' || error.code === 'FileIsADirectory')) return undefined;
      throw error;
    }
  }

  async listFiles(dir: string, limit: number): Promise<string[]> {
    const start = await this.uriOf(dir);
    const out: string[] = [];
    const walk = async (uri: vscode.Uri): Promise<void> => {
      let entries: [string, vscode.FileType][];
      try {
        entries = await vscode.workspace.fs.readDirectory(uri);
      } catch {
        return;
      }
      for (const [name, type] of entries.sort(([a], [b]) => a.localeCompare(b))) {
        if (out.length >= limit) return;
        if (SKIP.has(name)) continue;
        const child = vscode.Uri.joinPath(uri, name);
        // Symlinks are listed, never followed.
        if (type === vscode.FileType.Directory) await walk(child);
        else out.push(this.relative(child));
      }
    };
    await walk(start);
    return out;
  }

  /** The verification engine's search (ripgrep, or its JS fallback) over files on disk. */
  search(pattern: string, options: { glob?: string; limit: number; signal: AbortSignal }): Promise<SearchHit[]> {
    return engine().searchForAgent({ root: this.root, ...(this.ripgrepPath ? { ripgrepPath: this.ripgrepPath } : {}), ...(this.processes ? { processes: this.processes } : {}), readFile: (f) => this.readFile(f) }, pattern, options);
  }

  /** The whole file becomes `text`: one undoable edit of its document, then saved; a new file is created (with its folders) the same way. */
  async writeFile(requested: string, text: string): Promise<void> {
    const uri = await this.uriForWrite(requested);
    const edit = new vscode.WorkspaceEdit();
    if (await exists(uri)) {
      const document = await vscode.workspace.openTextDocument(uri);
      if (document.getText() === text) return;
      edit.replace(uri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text, { label: 'Ideal State run', needsConfirmation: false });
      await apply(edit, requested);
      if (!(await document.save())) throw new Error(`${requested} was edited but could not be saved`);
    } else {
      edit.createFile(uri, { overwrite: false, contents: new TextEncoder().encode(text) }, { label: 'Ideal State run', needsConfirmation: false });
      await apply(edit, requested);
    }
  }

  async deleteFile(requested: string): Promise<void> {
    const uri = await this.uriForWrite(requested);
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(uri, { ignoreIfNotExists: true }, { label: 'Ideal State run', needsConfirmation: false });
    await apply(edit, requested);
  }

  /** The verification engine's command runner: a bounded, scrubbed process tree in the folder. */
  async runCommand(command: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<CommandResult> {
    const run = { command, cwd: this.root, timeoutMs: options.timeoutMs, signal: options.signal };
    const r = await (this.processes ? this.processes.runCommand(run) : engine().runCommand(run));
    if (r.kind === 'cancelled') throw new CancelledError('the command was cancelled');
    const exitCode = r.kind === 'exited' ? r.exitCode : null;
    const note = r.kind === 'spawn-failed' ? `could not start: ${r.reason}\n` : r.kind === 'signalled' ? `ended by ${r.signal}\n` : '';
    return { exitCode, output: `${note}${r.output}`, timedOut: r.kind === 'timeout' };
  }

  relative(uri: vscode.Uri): string {
    return path.relative(this.root, uri.fsPath).split(path.sep).join('/');
  }
}

function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => !d.isClosed && d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  if (openDocument(uri)) return true;
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return stat.type !== vscode.FileType.Directory;
  } catch {
    return false;
  }
}

async function apply(edit: vscode.WorkspaceEdit, requested: string): Promise<void> {
  if (!(await vscode.workspace.applyEdit(edit))) throw new Error(`the editor refused the edit of ${requested}`);
}
