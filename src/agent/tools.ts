import { lineDiff } from './line-diff';
import { z } from 'zod';
import type { AgentToolName } from '../algorithm/capabilities';
import type { FileEdit } from '../model';
import { parseToolArguments } from '../llm/json-schema';
import type { ToolCall, ToolDefinition } from '../llm/types';
import type { RunApprovals } from './approvals';
import type { Checkpointer } from './checkpoint';
import { classifyWrite, isGitPath } from './control-files';
import { confinePath, PathEscapeError, type WorkspaceTools } from './workspace';

const Path = z.string().min(1).describe('workspace-relative path');

export const TOOL_DEFINITIONS: Record<AgentToolName, ToolDefinition> = {
  read_file: { name: 'read_file', description: 'Reads a text file of the workspace.', parameters: z.object({ path: Path }).strict() },
  list_files: { name: 'list_files', description: 'Lists files under a workspace folder, recursively.', parameters: z.object({ path: Path.default('.') }).strict() },
  search: { name: 'search', description: 'Searches workspace files for a regular expression.', parameters: z.object({ pattern: z.string().min(1), glob: z.string().min(1).optional() }).strict() },
  edit_file: {
    name: 'edit_file',
    description: 'Replaces one exact occurrence of `find` with `replace` in an existing file.',
    parameters: z.object({ path: Path, find: z.string().min(1), replace: z.string() }).strict(),
  },
  create_file: { name: 'create_file', description: 'Creates a new file (or replaces a whole file) with the given text.', parameters: z.object({ path: Path, text: z.string() }).strict() },
  run_command: { name: 'run_command', description: 'Runs a shell command in the workspace folder.', parameters: z.object({ command: z.string().min(1) }).strict() },
};

export interface ToolOutcome {
  readonly content: string;
  readonly isError: boolean;
}

const MAX_READ = 60_000;
const MAX_LIST = 500;
const MAX_HITS = 100;

/**
 * A specialist's tools for one packet: arguments checked against their schemas, paths
 * confined, edits and commands approved (and checkpointed before any change), every
 * change recorded as a FileEdit for the candidate. `.git` is neither read nor written (its
 * config can hold credentials, its hooks and config run commands), and a change to a file
 * that steers what runs is asked as a configuration change of its own (control-files.ts).
 */
export class AgentToolbox {
  readonly edits: FileEdit[] = [];
  readonly denials: string[] = [];
  readonly commandOutputs: string[] = [];

  constructor(
    private readonly files: WorkspaceTools,
    private readonly approvals: RunApprovals,
    private readonly checkpoint: Checkpointer,
    readonly allowed: readonly AgentToolName[],
    private readonly commandTimeoutMs = 120_000,
  ) {}

  definitions(): ToolDefinition[] {
    return this.allowed.map((t) => TOOL_DEFINITIONS[t]);
  }

  async call(call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    const name = call.name as AgentToolName;
    if (!this.allowed.includes(name)) return { content: `tool "${call.name}" is not available at this effort level`, isError: true };
    const parsed = parseToolArguments(TOOL_DEFINITIONS[name], call);
    if (!parsed.ok) return { content: parsed.error.message, isError: true };
    try {
      return await this.dispatch(name, parsed.value as Record<string, string>, signal);
    } catch (error) {
      if (error instanceof PathEscapeError) return { content: error.message, isError: true };
      if (signal.aborted) throw error;
      return { content: `${call.name} failed: ${error instanceof Error ? error.message : String(error)}`, isError: true };
    }
  }

  private async dispatch(name: AgentToolName, args: Record<string, string>, signal: AbortSignal): Promise<ToolOutcome> {
    switch (name) {
      case 'read_file': {
        const text = await this.files.readFile(await this.readable(args.path!));
        if (text === undefined) return { content: `no file ${args.path}`, isError: true };
        return { content: text.length > MAX_READ ? `${text.slice(0, MAX_READ)}\n[… ${text.length - MAX_READ} more characters]` : text, isError: false };
      }
      case 'list_files':
        return { content: (await this.files.listFiles(await this.readable(args.path ?? '.'), MAX_LIST)).filter((f) => !isGitPath(f)).join('\n') || '(no files)', isError: false };
      case 'search': {
        try {
          new RegExp(args.pattern!);
        } catch {
          return { content: `"${args.pattern}" is not a valid regular expression`, isError: true };
        }
        const hits = await this.files.search(args.pattern!, { ...(args.glob ? { glob: args.glob } : {}), limit: MAX_HITS, signal });
        const shown = hits.filter((h) => !isGitPath(h.file));
        return { content: shown.map((h) => `${h.file}:${h.line}: ${h.text}`).join('\n') || '(no matches)', isError: false };
      }
      case 'edit_file': {
        const { path, lands } = await this.writable(args.path!);
        const before = await this.files.readFile(path);
        if (before === undefined) return { content: `no file ${path}; use create_file`, isError: true };
        const at = before.indexOf(args.find!);
        if (at < 0) return { content: `the text to find does not occur in ${path}`, isError: true };
        if (before.indexOf(args.find!, at + 1) >= 0) return { content: `the text to find occurs more than once in ${path}; include more context`, isError: true };
        const after = before.slice(0, at) + args.replace! + before.slice(at + args.find!.length);
        return this.write(path, lands, before, after, signal);
      }
      case 'create_file': {
        const { path, lands } = await this.writable(args.path!);
        return this.write(path, lands, await this.files.readFile(path), args.text!, signal);
      }
      case 'run_command': {
        const ok = await this.approvals.approve({ kind: 'command', title: `Run a command in ${this.files.root}`, detail: args.command!, command: args.command!, cwd: this.files.root }, signal);
        if (!ok) {
          this.denials.push(`command: ${args.command}`);
          return { content: 'the command was not approved; do not try to work around it', isError: true };
        }
        const r = await this.files.runCommand(args.command!, { signal, timeoutMs: this.commandTimeoutMs });
        const text = `exit ${r.timedOut ? 'timeout' : r.exitCode}\n${r.output}`;
        this.commandOutputs.push(`$ ${args.command}\n${text}`);
        return { content: text, isError: r.exitCode !== 0 };
      }
    }
  }

  /** Where the path really lands (symlinks followed), when the workspace can tell. */
  private async landing(path: string): Promise<string> {
    return this.files.landingPath ? this.files.landingPath(path) : path;
  }

  /** A path the agent may read: confined, and not in `.git` (whose config can hold credentials in remote URLs). */
  private async readable(requested: string): Promise<string> {
    const path = confinePath(requested);
    if (isGitPath(path) || isGitPath(await this.landing(path))) throw new PathEscapeError(requested, '.git is not readable by the agent');
    return path;
  }

  /** A path the agent may write: confined, and not in `.git` however it is reached (a symlink, another case, Windows' trailing dots). */
  private async writable(requested: string): Promise<{ path: string; lands: string }> {
    const path = confinePath(requested);
    const lands = await this.landing(path);
    if (classifyWrite([path, lands]).kind === 'git') throw new PathEscapeError(requested, '.git is not writable by the agent: git runs its hooks and the commands its config names');
    return { path, lands };
  }

  private async write(path: string, lands: string, before: string | undefined, after: string, signal: AbortSignal): Promise<ToolOutcome> {
    const kind = before === undefined ? 'create' : 'modify';
    const target = classifyWrite([path, lands], { before, after });
    const config = target.kind === 'config';
    const title = config ? `Change configuration: ${path}${kind === 'create' ? ' (new file)' : ''} — ${target.effect}` : `${kind === 'create' ? 'Create' : 'Edit'} ${path}`;
    const ok = await this.approvals.approve(
      { kind: config ? 'config' : 'edit', title, detail: diffSummary(path, before, after), path, proposed: after, creates: kind === 'create', ...(config ? { effect: target.effect } : {}) },
      signal,
    );
    if (!ok) {
      this.denials.push(`${config ? 'configuration' : 'edit'}: ${path}`);
      const what = config ? 'configuration change' : kind === 'create' ? 'new file' : 'edit';
      return { content: `the ${what} was not approved; do not try to work around it`, isError: true };
    }
    this.checkpoint.before(path, before);
    await this.files.writeFile(path, after);
    this.edits.push({ path, kind, ...(before !== undefined ? { before } : {}), after });
    return { content: `${kind === 'create' ? 'created' : 'edited'} ${path}`, isError: false };
  }
}

/** A small line diff for the approval prompt: removed and added lines, capped. */
export function diffSummary(path: string, before: string | undefined, after: string): string {
  return lineDiff(path, before, after).text;
}
