import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { criterionRows, type CriterionRow } from '../app/done-gate';
import type { AnyCriterion } from '../model';
import type { PrdDocument } from '../prd';
import { pendingFolder } from '../store/pending';
import { defaultCliStoreFile, Store } from '../store/store';

/** Folders whose changes say nothing about the work (and are too large to walk). */
const NOT_WORK = new Set(['.git', 'node_modules', '.ideal-state', '.vscode-test', 'out', 'dist']);
const WALK_LIMIT = 20_000;

/**
 * The PRD's criteria with what the store last recorded for each. Staleness is the coarse,
 * honest rule the command line can apply without the editor's file watcher: any change to a
 * workspace file (outside the PRD and build or tool folders) after the verification, or a
 * change to the criterion's own text or method, makes its outcome stale.
 */
export async function criteriaRows(workspace: string, prdRelative: string, document: PrdDocument, storeFile: string | false | undefined): Promise<CriterionRow[]> {
  const stored = storeFile === false ? new Map<string, AnyCriterion>() : await lastStored(storeFile ?? defaultCliStoreFile(workspace), prdRelative);
  const verifiedTimes = [...stored.values()].map((c) => c.verifiedAt).filter((t): t is string => t !== undefined);
  const oldest = verifiedTimes.length > 0 ? Math.min(...verifiedTimes.map((t) => Date.parse(t))) : undefined;
  const newestChange = oldest === undefined ? 0 : await newestModification(workspace, path.join(workspace, ...prdRelative.split('/')), oldest);
  return criterionRows(document.criteria, stored, (_id, verifiedAt) => newestChange > Date.parse(verifiedAt));
}

async function lastStored(file: string, prdRelative: string): Promise<Map<string, AnyCriterion>> {
  const out = new Map<string, AnyCriterion>();
  // No store and no report left for it (src/store/pending.ts): nothing was verified yet.
  const exists = (f: string) => fs.access(f).then(() => true, () => false);
  if (!(await exists(file)) && !(await exists(pendingFolder(file)))) return out;
  // Opening it folds in the reports verify calls left beside it.
  const store = await Store.open({ file });
  try {
    const runId = store.prdIndex.where('path = ?', [prdRelative])[0]?.runId;
    if (runId) for (const c of store.criteria.list(runId)) out.set(c.id, c);
  } finally {
    store.close();
  }
  return out;
}

/** The newest modification time (ms) among the workspace's files, stopping early once one is newer than `after`. */
async function newestModification(workspace: string, prd: string, after: number): Promise<number> {
  let newest = 0;
  let seen = 0;
  const walk = async (dir: string): Promise<boolean> => {
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (++seen > WALK_LIMIT) return true;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!NOT_WORK.has(e.name) && (await walk(full))) return true;
      } else if (e.isFile() && full !== prd) {
        const mtime = (await fs.stat(full).catch(() => undefined))?.mtimeMs ?? 0;
        newest = Math.max(newest, mtime);
        if (newest > after) return true;
      }
    }
    return false;
  };
  await walk(workspace);
  return newest;
}
