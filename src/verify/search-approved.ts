import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { IgnoreChange } from './search-rules';
import { ignoredBy, ignoreFileOf, type IgnoreLevel, type SearchScope } from './search-scope';

/** Folders read at once while looking for `.gitignore` files. */
const CONCURRENT_READS = 16;

/** One look per approved set and set of excludes: every Grep of a verification shares it. */
const looks = new WeakMap<object, Map<string, Promise<IgnoreChange[]>>>();

/**
 * The `.gitignore` files on disk that differ from the approved ones, in the folders a search
 * under the approved rules walks: added (on disk, not approved), changed (other text),
 * removed (approved, not on disk). ripgrep reads the files on disk, so it gives the approved
 * answer only when this is empty; otherwise the JS search applies the approved texts.
 *
 * Folders the approved rules ignore are not looked into: a `.gitignore` there changes nothing.
 * None for a scope without approved rules.
 */
export function ignoreChanges(scope: SearchScope, signal?: AbortSignal): Promise<IgnoreChange[]> {
  const approved = scope.approved;
  if (!approved) return Promise.resolve([]);
  let byRules = looks.get(approved);
  if (!byRules) looks.set(approved, (byRules = new Map()));
  let look = byRules.get(scope.rulesKey);
  if (!look) {
    look = walkForChanges(scope, signal);
    byRules.set(scope.rulesKey, look);
    // A look cut short by a cancel is not an answer for the next Grep.
    void look.then(() => signal?.aborted && byRules!.delete(scope.rulesKey));
  }
  return look;
}

async function walkForChanges(scope: SearchScope, signal: AbortSignal | undefined): Promise<IgnoreChange[]> {
  const changes: IgnoreChange[] = [];
  let active = 0;
  const waiting: (() => void)[] = [];
  const readdir = async (dir: string) => {
    if (active >= CONCURRENT_READS) await new Promise<void>((resolve) => waiting.push(resolve));
    active++;
    try {
      return await fs.readdir(path.join(scope.root, dir), { withFileTypes: true });
    } catch {
      return undefined;
    } finally {
      active--;
      waiting.shift()?.();
    }
  };
  const walk = async (dir: string, parents: readonly IgnoreLevel[]): Promise<void> => {
    if (signal?.aborted) return;
    const entries = await readdir(dir);
    if (!entries) return;
    const file = ignoreFileOf(dir);
    const text = scope.approvedText(file);
    const onDisk = entries.find((e) => e.name === '.gitignore' && !e.isDirectory());
    if (onDisk) {
      const now = await fs.readFile(path.join(scope.root, file), 'utf8').catch(() => undefined);
      if (text === undefined || text === null) changes.push({ file, change: 'added' });
      else if (now !== text) changes.push({ file, change: 'changed' });
    } else if (typeof text === 'string') changes.push({ file, change: 'removed' });
    const rules = await scope.ignoreRules(dir);
    const stack = rules.length > 0 ? [...parents, { base: dir, rules }] : parents;
    const below: Promise<void>[] = [];
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const relative = dir === '' ? entry.name : `${dir}/${entry.name}`;
      if (!scope.excluded(relative, true) && !ignoredBy(stack, relative, true)) below.push(walk(relative, stack));
    }
    await Promise.all(below);
  };
  await walk('', []);
  return changes.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}
