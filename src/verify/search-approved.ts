import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { IgnoreChange } from './search-rules';
import { readRegularTextOrAbsent } from './safe-read';
import { ignoredBy, ignoreFileOf, type IgnoreLevel, type SearchScope } from './search-scope';

/** Folders read at once while looking for `.gitignore` files. */
const CONCURRENT_READS = 16;

/**
 * One look per approved set and set of excludes, shared by the Greps of a verification (the host
 * gives one approved set for the whole of it). A settled look is reused only briefly, so a host
 * that keeps the same set for a later verification looks again.
 */
const looks = new WeakMap<object, Map<string, { look: Promise<IgnoreChange[]>; settledAt?: number }>>();
const REUSE_MS = 2_000;

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
  let entry = byRules.get(scope.rulesKey);
  if (!entry || (entry.settledAt !== undefined && Date.now() - entry.settledAt >= REUSE_MS)) {
    // The look is shared, so no one Grep's cancel cuts it short: a cancelled Grep stops waiting instead.
    const fresh: { look: Promise<IgnoreChange[]>; settledAt?: number } = { look: walkForChanges(scope) };
    void fresh.look.then(() => (fresh.settledAt = Date.now()));
    byRules.set(scope.rulesKey, (entry = fresh));
  }
  return signal ? untilAborted(entry.look, signal) : entry.look;
}

/** The look's answer, or none as soon as `signal` aborts (the caller then reports the cancel). */
function untilAborted(look: Promise<IgnoreChange[]>, signal: AbortSignal): Promise<IgnoreChange[]> {
  if (signal.aborted) return Promise.resolve([]);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve([]);
    signal.addEventListener('abort', onAbort, { once: true });
    look.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function walkForChanges(scope: SearchScope): Promise<IgnoreChange[]> {
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
    const entries = await readdir(dir);
    if (!entries) return;
    const file = ignoreFileOf(dir);
    const text = scope.approvedText(file);
    const onDisk = entries.find((e) => e.name === '.gitignore' && !e.isDirectory());
    if (onDisk) {
      const now = await readRegularTextOrAbsent(path.join(scope.root, file));
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
