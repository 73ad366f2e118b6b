import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CancelledError } from '../model/errors';
import { confinePath as confineOnDisk } from '../verify/confine';
import { runCommand } from '../verify/run-command';
import { isGitPath } from './control-files';
import { landingPath } from './landing-path';
import { confinePath, PathEscapeError, type CommandResult, type SearchHit, type WorkspaceTools } from './workspace';
import { searchForAgent } from './workspace-search';

const SKIP = new Set(['.git', 'node_modules']);

/**
 * The agent's workspace on disk, for the command line and tests. Each path passes the
 * lexical check and then the verification engine's on-disk one, which follows symlinks,
 * so a link pointing out of the workspace is refused too. Search and commands are the
 * verification engine's (ripgrep or the JS search; a bounded, scrubbed process tree).
 */
export class NodeWorkspace implements WorkspaceTools {
  readonly root: string;

  constructor(root: string, private readonly ripgrepPath?: string) {
    this.root = path.resolve(root);
  }

  private async resolve(requested: string): Promise<string> {
    const relative = confinePath(requested);
    const confined = await confineOnDisk(this.root, relative);
    if (!confined.ok) throw new PathEscapeError(requested, confined.reason);
    return confined.absolute;
  }

  async readFile(requested: string): Promise<string | undefined> {
    const file = await this.resolve(requested);
    try {
      return await fs.readFile(file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async listFiles(dir: string, limit: number): Promise<string[]> {
    const start = await this.resolve(dir);
    const out: string[] = [];
    const walk = async (abs: string): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(abs, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (out.length >= limit) return;
        if (SKIP.has(e.name)) continue;
        const full = path.join(abs, e.name);
        // Symlinks are listed, never followed.
        if (e.isDirectory()) await walk(full);
        else out.push(path.relative(this.root, full).split(path.sep).join('/'));
      }
    };
    await walk(start);
    return out;
  }

  search(pattern: string, options: { glob?: string; limit: number; signal: AbortSignal }): Promise<SearchHit[]> {
    return searchForAgent({ root: this.root, ...(this.ripgrepPath ? { ripgrepPath: this.ripgrepPath } : {}), readFile: (f) => this.readFile(f) }, pattern, options);
  }

  landingPath(requested: string): Promise<string> {
    return landingPath(this.root, confinePath(requested));
  }

  /** A write's path, refused inside `.git` however it is reached: a floor under the agent's tools (which refuse it first, with the reason). */
  private async resolveForWrite(requested: string): Promise<string> {
    const file = await this.resolve(requested);
    if (isGitPath(confinePath(requested)) || isGitPath(await this.landingPath(requested))) throw new PathEscapeError(requested, '.git is not writable by the agent');
    return file;
  }

  async writeFile(requested: string, text: string): Promise<void> {
    const file = await this.resolveForWrite(requested);
    await fs.mkdir(path.dirname(file), { recursive: true });
    // Write then rename, so a crash never leaves half a file.
    const tmp = `${file}.ideal-state-${process.pid}.tmp`;
    await fs.writeFile(tmp, text, 'utf8');
    await fs.rename(tmp, file);
  }

  async deleteFile(requested: string): Promise<void> {
    await fs.rm(await this.resolveForWrite(requested), { force: true });
  }

  async runCommand(command: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<CommandResult> {
    const r = await runCommand({ command, cwd: this.root, timeoutMs: options.timeoutMs, signal: options.signal });
    if (r.kind === 'cancelled') throw new CancelledError('the command was cancelled');
    const exitCode = r.kind === 'exited' ? r.exitCode : null;
    const note = r.kind === 'spawn-failed' ? `could not start: ${r.reason}\n` : r.kind === 'signalled' ? `ended by ${r.signal}\n` : '';
    return { exitCode, output: `${note}${r.output}`, timedOut: r.kind === 'timeout' };
  }
}
