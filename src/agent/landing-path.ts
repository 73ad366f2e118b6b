import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/**
 * Where a write to `relative` really lands, workspace-relative with forward slashes: the
 * deepest part of the path that exists, resolved by the operating system (symlinks followed;
 * on Windows also 8.3 short names such as GIT~1 and trailing dots; on macOS the name's real
 * case), then the part that does not exist yet as written. So `hooks-link/post-commit`, with
 * `hooks-link` a symlink to `.git/hooks`, lands in `.git/hooks/post-commit`. Confinement has
 * already refused paths that leave the workspace; one that does anyway is returned as written.
 */
export async function landingPath(root: string, relative: string): Promise<string> {
  const realRoot = await fs.realpath(root).catch(() => path.resolve(root));
  let probe = path.resolve(root, relative);
  const tail: string[] = [];
  for (;;) {
    const real = await fs.realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      const inside = path.relative(realRoot, real);
      if (inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside)) return relative;
      return [...inside.split(path.sep), ...tail].filter((s) => s !== '').join('/') || '.';
    }
    const parent = path.dirname(probe);
    if (parent === probe) return relative;
    tail.unshift(path.basename(probe));
    probe = parent;
  }
}
