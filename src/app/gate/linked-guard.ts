import { lstatSync, readdirSync, realpathSync, statSync, type Stats } from 'node:fs';
import * as path from 'node:path';

/**
 * The snapshot links ignored and dependency folders (node_modules, .venv, …) to the live ones, so
 * what a check runs from them is read live while the gate verifies: a process that rewrites
 * `node_modules/.bin/checker`, or the file it points to, only while the gate runs would change the
 * verdict unseen. These entries are added to the fingerprint compared before and after the checks
 * (workspace-fingerprint.ts), so such a change is "changed while the gate verified it", a block:
 * - every entry of each linked `node_modules/.bin` (what npm, npx, yarn and pnpm put first on a
 *   script's PATH), with the file each one resolves to, and the folder itself (a shim added);
 * - each locked input a check executes that lies in a linked folder (a `node_modules/.bin` shim the
 *   lock resolved, a runner's configuration), with what it resolves to, and every file of the
 *   package it resolves into (`node_modules/<name>` or `node_modules/@scope/<name>`): what a shim
 *   runs is mostly its own package's code.
 * Not where a locked check installs dependencies (`npm ci && npm test`): its own writes to
 * node_modules cannot be told from a watcher's, so nothing in node_modules is guarded for that
 * stop, and the answer says so (frozen.ts); the lock still holds the manifest and lockfile it installs from.
 * Looks only (lstat and stat, no reading), at most GUARD_LIMIT entries: a few milliseconds
 * (bench/gate.mjs). What a check reads from other packages stays live; the lock's own comparison
 * of its inputs still holds.
 */
export const GUARD_LIMIT = 20_000;

export interface LinkedGuard {
  /** Entry key (workspace-relative, or the real path where a link leads out of the workspace) → what a change alters. */
  readonly entries: Map<string, string>;
  readonly changed: Map<string, number>;
}

/** The guarded entries for a walk's left-out entries (workspace-relative) and the workspace-relative files the locked checks execute. */
export function guardLinked(live: string, linked: readonly string[], executed: readonly string[], options: { installing?: boolean } = {}): LinkedGuard {
  const guard: LinkedGuard = { entries: new Map(), changed: new Map() };
  let count = 0;
  const look = (key: string, file: string, follow: boolean): Stats | undefined => {
    if (++count > GUARD_LIMIT) return undefined;
    const stat = (follow ? statSync : lstatSync)(file, { throwIfNoEntry: false });
    guard.entries.set(key, stat ? `${stat.isDirectory() ? 'folder' : stat.isSymbolicLink() ? 'link' : 'file'} ${stat.ino} ${stat.size} ${stat.mtimeMs} ${stat.ctimeMs}` : 'absent');
    if (stat) guard.changed.set(key, stat.ctimeMs);
    return stat;
  };
  const keyOf = (real: string) => {
    const r = path.relative(live, real);
    return r.startsWith('..') || path.isAbsolute(r) ? real : r.split(path.sep).join('/');
  };
  /** A file and, where it is a link, what it resolves to (and, once, the package that holds that). */
  const guardFile = (relative: string, withPackage: boolean) => {
    const file = path.join(live, relative);
    const stat = look(`${relative} (linked)`, file, false);
    if (!stat?.isSymbolicLink()) {
      if (withPackage && stat) guardPackageOf(file);
      return;
    }
    const real = safeRealpath(file);
    if (real === undefined) return;
    look(`${keyOf(real)} (what ${relative} runs)`, real, true);
    if (withPackage) guardPackageOf(real);
  };
  const packages = new Set<string>();
  const guardPackageOf = (file: string) => {
    const folder = packageFolderOf(file);
    if (folder === undefined || packages.has(folder)) return;
    packages.add(folder);
    for (const f of filesUnder(folder, () => count < GUARD_LIMIT)) look(`${keyOf(f)} (package)`, f, false);
  };

  // A locked check that installs dependencies rewrites node_modules itself (check-installs.ts): nothing in it is guarded.
  const installed = (relative: string) => options.installing === true && relative.split('/').includes('node_modules');
  for (const folder of linked.filter((l) => path.posix.basename(l) === 'node_modules' && !installed(l))) {
    const bin = `${folder}/.bin`;
    const binStat = look(`${bin} (linked)`, path.join(live, bin), false);
    if (!binStat?.isDirectory()) continue;
    for (const name of readdirSync(path.join(live, bin)).sort()) guardFile(`${bin}/${name}`, false);
  }
  const through = (relative: string) => linked.some((l) => relative === l || relative.startsWith(`${l}/`));
  for (const relative of executed) if (through(relative) && !installed(relative)) guardFile(relative, true);
  return guard;
}

/** The package folder a file lies in: the `node_modules/<name>` (or `node_modules/@scope/<name>`) nearest to it. */
export function packageFolderOf(file: string): string | undefined {
  const parts = file.split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0 || at + 1 >= parts.length - 1) return undefined;
  const scoped = parts[at + 1]!.startsWith('@');
  if (scoped && at + 2 >= parts.length - 1) return undefined;
  return parts.slice(0, at + (scoped ? 3 : 2)).join(path.sep) || undefined;
}

function* filesUnder(folder: string, more: () => boolean): Generator<string> {
  const queue = [folder];
  while (queue.length > 0 && more()) {
    const dir = queue.shift()!;
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      // A package's own dependencies are other packages: not this one's code.
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') queue.push(full);
      } else yield full;
    }
  }
}

function safeRealpath(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}
