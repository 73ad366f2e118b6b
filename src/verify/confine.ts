import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/**
 * Every path a criterion names must stay inside the workspace: no `..` escape, no absolute
 * path elsewhere, no symlink whose target lies outside. A path that escapes is an answer
 * with the reason, never an exception, so the verifier can report it as the criterion's
 * result.
 */
export type Confined =
  | { ok: true; /** absolute, as written (not through symlinks) */ absolute: string; /** workspace-relative, forward slashes; '' for the root */ relative: string; exists: boolean }
  | { ok: false; reason: string };

export async function confinePath(workspaceRoot: string, named: string, linkedRoot?: string): Promise<Confined> {
  if (named.trim() === '') return { ok: false, reason: 'the path is empty' };
  if (named.includes('\0')) return { ok: false, reason: 'the path contains a NUL character' };
  const root = path.resolve(workspaceRoot);
  const absolute = path.resolve(root, named);
  const relative = path.relative(root, absolute);
  if (isOutside(relative)) {
    return { ok: false, reason: path.isAbsolute(named) ? `"${named}" is an absolute path outside the workspace` : `"${named}" leads outside the workspace` };
  }
  const realRoot = await realpath(root);
  // The workspace folder itself (a command's usual folder): what was just looked up.
  if (absolute === root) return { ok: true, absolute, relative: '', exists: realRoot !== null };
  // The deepest part of the path that exists decides where it really points.
  let probe = absolute;
  let exists = true;
  for (;;) {
    const real = await realpath(probe);
    if (real !== null) {
      const linked = linkedRoot !== undefined && !isOutside(path.relative(await realpath(linkedRoot) ?? path.resolve(linkedRoot), real));
      if (isOutside(path.relative(realRoot ?? root, real)) && !linked) return { ok: false, reason: `"${named}" goes through a symbolic link that points outside the workspace` };
      break;
    }
    exists = false;
    const parent = path.dirname(probe);
    if (parent === probe) break;
    probe = parent;
  }
  return { ok: true, absolute, relative: relative.split(path.sep).join('/'), exists };
}

/** A workspace-relative glob: no absolute path, no `..` segment. */
export function confineGlob(glob: string): { ok: true } | { ok: false; reason: string } {
  const g = glob.trim();
  if (g === '') return { ok: false, reason: 'the glob is empty' };
  if (path.isAbsolute(g) || /^[A-Za-z]:[\\/]/.test(g)) return { ok: false, reason: `the glob "${glob}" is an absolute path; globs are relative to the workspace folder` };
  if (g.split(/[\\/]/).includes('..')) return { ok: false, reason: `the glob "${glob}" leads outside the workspace ("..")` };
  return { ok: true };
}

function isOutside(relative: string): boolean {
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
}

async function realpath(p: string): Promise<string | null> {
  try {
    return await fs.realpath(p);
  } catch {
    return null;
  }
}
