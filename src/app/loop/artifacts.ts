import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { CancelledError } from '../../model/errors';
import { MAX_SHARDS, type LoopShard } from '../../model/loop';
import { confineGlob } from '../../verify/confine';
import { ignoredBy, SearchScope, type IgnoreLevel } from '../../verify/search-scope';

/**
 * Folders never walked for artifacts, whatever the glob says (besides `.git` and `.gitignore`d
 * ones). `.ideal-state` holds the PRDs, the loop's own among them: never an artifact.
 */
export const LOOP_EXCLUDED = ['node_modules', '.git', '.vscode-test', 'out', 'dist', '.ideal-state'] as const;

export class LoopInputError extends Error {
  override readonly name = 'LoopInputError';
  readonly code = 'LOOP_BAD_INPUT';
}

/**
 * The artifacts a glob names: workspace-relative files, sorted, confined to the root. The one
 * list of them: the loop runs these, and the editor's glob box counts these. The
 * walk is GREP's (SearchScope: the gitignore dialect, `.gitignore` files honoured, symlinks
 * never followed) with `node_modules` and build folders left out.
 */
export async function listArtifacts(root: string, glob: string, options: { signal?: AbortSignal; exclude?: readonly string[] } = {}): Promise<string[]> {
  const confined = confineGlob(glob);
  if (!confined.ok) throw new LoopInputError(`--glob: ${confined.reason}`);
  const scope = SearchScope.create(root, glob.trim(), [...LOOP_EXCLUDED, ...(options.exclude ?? [])], []);
  if (!scope.glob) throw new LoopInputError(`--glob "${glob}" selects nothing`);
  const found: string[] = [];
  const walk = async (dir: string, stack: IgnoreLevel[]): Promise<void> => {
    if (options.signal?.aborted) throw new CancelledError('listing the artifacts was cancelled');
    const levels = [...stack, { base: dir, rules: await scope.ignoreRules(dir) }];
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(path.join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const rel = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!scope.excluded(rel, true) && !ignoredBy(levels, rel, true)) await walk(rel, levels);
      } else if (entry.isFile() && scope.admitsFile(rel) && !ignoredBy(levels, rel, false)) found.push(rel);
    }
  };
  await walk('', []);
  return found.sort(compareFiles);
}

/** The one order of artifacts everywhere (reports, PRD, shards): by code unit, never by locale. */
export function compareFiles(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `I/N` (1-based) as a shard; anything else is a usage error that says what is expected. */
export function parseShard(text: string): LoopShard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1) || index > count) throw new LoopInputError(`--shard takes I/N with 1 ≤ I ≤ N (e.g. 2/4), not "${text}"`);
  if (count > MAX_SHARDS) throw new LoopInputError(`--shard: at most ${MAX_SHARDS} shards, not ${count}`);
  return { index, count };
}

/**
 * The shard (1-based) an artifact belongs to: a stable hash of its path, so adding or
 * removing a file never moves another one to a different shard.
 */
export function shardIndexOf(file: string, count: number): number {
  if (count <= 1) return 1;
  const h = crypto.createHash('sha256').update(file, 'utf8').digest();
  return (h.readUInt32BE(0) % count) + 1;
}

/** The artifacts of shard `index` of `count` (1-based), in their order. */
export function shardOf(artifacts: readonly string[], index: number, count: number): string[] {
  return artifacts.filter((f) => shardIndexOf(f, count) === index);
}
