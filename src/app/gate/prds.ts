import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { SETTINGS } from '../../model/settings';
import { parsePrd } from '../../prd/parse';
import { parseJsonc } from '../../verify/jsonc';
import { PRD_LIMITS } from '../../prd/limits';
import { readRegularTextOrAbsent } from '../../verify/safe-read';

/**
 * Where a workspace keeps its PRDs and which one an agent outside Ideal State is held to:
 * `idealState.prd.folder` from `.vscode/settings.json` when it names a folder inside the
 * workspace, else `.ideal-state/prds`.
 */
export async function prdFolder(workspace: string): Promise<string> {
  return (await workspacePathSetting(workspace, SETTINGS.prdFolder.key)) ?? SETTINGS.prdFolder.default;
}

/**
 * A workspace-relative path from `.vscode/settings.json`; undefined when unset, empty, or not
 * inside the workspace.
 */
export async function workspacePathSetting(workspace: string, key: string): Promise<string | undefined> {
  // Only a regular file is read: a FIFO in its place would hang the gate (it reads as unset).
  const text = await readRegularTextOrAbsent(path.join(workspace, '.vscode', 'settings.json'));
  if (text === undefined) return undefined;
  const parsed = parseJsonc(text);
  const value = parsed.ok && typeof parsed.value === 'object' && parsed.value !== null ? (parsed.value as Record<string, unknown>)[key] : undefined;
  if (typeof value !== 'string' || value.trim() === '' || path.isAbsolute(value) || value.split(/[\\/]/).includes('..')) return undefined;
  return value.trim();
}

export interface WorkspacePrd {
  /** Absolute. */
  file: string;
  /** Workspace-relative, forward slashes. */
  relative: string;
  mtimeMs: number;
}

/** The PRDs (`*.md`) in the workspace's PRD folder, newest first. */
export async function listPrds(workspace: string): Promise<WorkspacePrd[]> {
  const folder = await prdFolder(workspace);
  const dir = path.join(workspace, folder);
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  const found: WorkspacePrd[] = [];
  for (const name of names.filter((n) => n.toLowerCase().endsWith('.md'))) {
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => undefined);
    if (stat?.isFile()) found.push({ file, relative: path.relative(workspace, file).split(path.sep).join('/'), mtimeMs: stat.mtimeMs });
  }
  return found.sort((a, b) => b.mtimeMs - a.mtimeMs || a.relative.localeCompare(b.relative));
}

/**
 * The PRDs an agent can be held to, newest first: a loop's PRD (`loop:` in its frontmatter)
 * is left out, as it is the loop's record and has no criteria of its own; each artifact's
 * criteria are in its own PRD.
 */
export async function criteriaPrds(workspace: string): Promise<WorkspacePrd[]> {
  const held: WorkspacePrd[] = [];
  for (const prd of await listPrds(workspace)) {
    const text = await readRegularTextOrAbsent(prd.file, PRD_LIMITS.maxChars * 4);
    // A loop's PRD names its loop (`loop:` in its front matter); a text without the word is not one,
    // and is not parsed here only to learn that (verifying it parses it once more).
    if (text !== undefined && text.includes('loop') && parsePrd(text).meta.loopId !== undefined) continue;
    held.push(prd);
  }
  return held;
}

/**
 * The workspace an agent works in: the nearest folder at or above `cwd` that has an
 * `.ideal-state` folder (an agent may run in a subfolder), stopping at a repository root;
 * else `cwd` itself.
 */
export async function workspaceOf(cwd: string): Promise<string> {
  let dir = path.resolve(cwd);
  for (;;) {
    if (await exists(path.join(dir, '.ideal-state'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir || (await exists(path.join(dir, '.git')))) return path.resolve(cwd);
    dir = parent;
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}
