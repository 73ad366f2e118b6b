/**
 * What a specialist may do in the workspace. The editor implements it with WorkspaceEdit
 * (undoable, visible in open editors) and its task runner; the command line and tests use
 * the Node implementation in node-workspace.ts. Every path is workspace-relative.
 */
export interface WorkspaceTools {
  /** Absolute path of the workspace folder, for messages only. */
  readonly root: string;
  /** The file's text, or undefined when it does not exist. */
  readFile(path: string): Promise<string | undefined>;
  /** Workspace-relative files under `dir` (recursive, ignored folders skipped), at most `limit`. */
  listFiles(dir: string, limit: number): Promise<string[]>;
  search(pattern: string, options: { glob?: string; limit: number; signal: AbortSignal }): Promise<SearchHit[]>;
  /** Writes the whole file, creating folders as needed. */
  writeFile(path: string, text: string): Promise<void>;
  deleteFile(path: string): Promise<void>;
  /**
   * Where a write to `path` really lands (symlinks followed), workspace-relative, so a link to
   * `.git` or `.vscode` is refused or asked like the folder itself (see control-files.ts).
   * Without it only the path as written is checked.
   */
  landingPath?(path: string): Promise<string>;
  runCommand(command: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<CommandResult>;
}

export interface SearchHit {
  readonly file: string;
  readonly line: number;
  readonly text: string;
}

export interface CommandResult {
  readonly exitCode: number | null;
  /** Combined output, capped. */
  readonly output: string;
  readonly timedOut: boolean;
}

/** A path the agent asked for that is not inside the workspace; the tool call is refused. */
export class PathEscapeError extends Error {
  override readonly name = 'PathEscapeError';
  readonly code = 'path-escape';
  constructor(readonly requested: string, why: string) {
    super(`path "${requested}" is refused: ${why}`);
  }
}

/**
 * The lexical half of path confinement, pure so both implementations share it: no
 * absolute paths, no drive letters, no `..` segments, no NUL. Returns the normalised
 * forward-slash path. The Node and editor implementations add the symlink check.
 */
export function confinePath(requested: string): string {
  if (typeof requested !== 'string' || requested.trim() === '') throw new PathEscapeError(String(requested), 'it is empty');
  if (requested.includes('\0')) throw new PathEscapeError(requested, 'it contains a NUL character');
  const p = requested.replace(/\\/g, '/');
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p) || p.startsWith('~')) throw new PathEscapeError(requested, 'it is absolute; paths are relative to the workspace folder');
  const parts = p.split('/').filter((s) => s !== '' && s !== '.');
  if (parts.includes('..')) throw new PathEscapeError(requested, 'it leaves the workspace folder ("..")');
  if (parts.length === 0) return '.';
  return parts.join('/');
}
