import { resolveEffortLevel } from '../model/effort-table';
import { newId } from '../model/ids';
import type { AnyCriterion } from '../model/criterion';
import { Decision } from '../model/decision';
import { type EffortTable, DEFAULT_EFFORT_LEVEL } from '../model/effort';
import { RUN_ID, type Run } from '../model/run';
import { createRun } from '../model/runs';
import { crc32 } from '../store/crc32';
import type { Repositories, Store } from '../store/store';
import { criterionData, type PrdCriterionData, type PrdDocument } from './model';
import { parsePrd } from './parse';
import { isPrdDocument } from './recognise';
import { toCoreCriterion } from './to-core';

/** What a saved PRD did to the store. */
export type PrdStoreSync =
  | { kind: 'not-a-prd' }
  /** The file has errors (or the store is read-only); nothing was written. `reason` says which. */
  | { kind: 'skipped'; reason: string }
  | { kind: 'unchanged'; runId: string; version: number }
  /** A run was made for this PRD with its criteria as version 1. */
  | { kind: 'created'; runId: string; version: number }
  /** The user's edit became a new criteria version with an "edited in the PRD" decision. */
  | { kind: 'edited'; runId: string; version: number; changes: string[] };

export const EDITED_IN_THE_PRD = 'edited in the PRD';
export const CREATED_FROM_THE_PRD = 'created from the PRD';

export interface PrdStoreSyncInput {
  text: string;
  /** Workspace-relative path with `/`, the key of the PRD index. */
  path: string;
  effortTable: EffortTable;
  now?: Date;
}

type SyncStore = Pick<Store, 'runs' | 'criteria' | 'prdIndex' | 'batch' | 'readOnly'>;

/**
 * Brings a saved PRD's criteria into the store. The run is the one named by
 * the frontmatter's `run_id`, else the one the PRD index links to this path, else a new one
 * linked through the index — the file itself is never rewritten to hold the id.
 * Criteria that differ from the run's latest version become the next version, with a
 * decision by the user saying what changed; rows that did not change keep their outcome.
 */
export function syncPrdToStore(store: SyncStore, input: PrdStoreSyncInput): PrdStoreSync {
  const doc = parsePrd(input.text);
  if (!isPrdDocument(doc)) return { kind: 'not-a-prd' };
  if (store.readOnly) return { kind: 'skipped', reason: 'the store is open read-only in this window' };
  // A loop's PRD is written by its loop from the store: saving it must not make it a run of its own.
  if (doc.meta.loopId !== undefined) return { kind: 'skipped', reason: `the PRD of loop ${doc.meta.loopId}: the loop keeps its artifacts' runs itself` };
  const errors = doc.diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { kind: 'skipped', reason: `${errors.length} error${errors.length === 1 ? '' : 's'} in the PRD (see the Problems panel)` };
  const at = (input.now ?? new Date()).toISOString();
  const wanted: AnyCriterion[] = [];
  for (const c of doc.criteria) {
    const core = toCoreCriterion(criterionData(c), at);
    if (!core.ok) return { kind: 'skipped', reason: `line ${c.line + 1}: ${core.message}` };
    wanted.push(core.criterion);
  }

  const existing = findRun(store, doc, input.path);
  const index = indexEntry(doc, input, existing?.id, at);
  if (!existing) {
    const run = newRunFor(doc, input, at);
    store.batch((r) => {
      r.runs.save(run);
      r.criteria.saveVersion(run.id, 1, wanted);
      r.decisions.save(decision(run.id, at, CREATED_FROM_THE_PRD, `${input.path}: ${wanted.length} criteria`, 1));
      r.prdIndex.save({ ...index, runId: run.id });
    });
    return { kind: 'created', runId: run.id, version: 1 };
  }

  const latest = store.criteria.latestVersion(existing.id);
  const stored = latest === undefined ? [] : store.criteria.list(existing.id, latest);
  const { criteria, changes } = reconcile(stored, wanted, at);
  if (changes.length === 0) {
    store.prdIndex.save(index);
    return { kind: 'unchanged', runId: existing.id, version: latest ?? 0 };
  }
  const version = (latest ?? 0) + 1;
  store.batch((r: Repositories) => {
    r.criteria.saveVersion(existing.id, version, criteria);
    r.runs.save({ ...existing, criteriaVersion: version, prdPath: input.path, updatedAt: at });
    r.decisions.save(decision(existing.id, at, EDITED_IN_THE_PRD, `${input.path}: ${changes.join(', ')}`, version));
    r.prdIndex.save(index);
  });
  return { kind: 'edited', runId: existing.id, version, changes };
}

function findRun(store: SyncStore, doc: PrdDocument, path: string): Run | undefined {
  if (doc.meta.runId) {
    const named = store.runs.get(doc.meta.runId);
    if (named) return named;
  }
  const indexed = store.prdIndex.where('path = ?', [path])[0];
  return indexed?.runId ? store.runs.get(indexed.runId) : undefined;
}

function newRunFor(doc: PrdDocument, input: PrdStoreSyncInput, at: string): Run {
  const effort = doc.meta.effort ? resolveEffortLevel(doc.meta.effort, input.effortTable) : undefined;
  const run = createRun({ request: doc.title?.text || doc.meta.title || doc.meta.id || input.path, effort: effort?.ok ? effort.level : DEFAULT_EFFORT_LEVEL }, input.effortTable, new Date(at));
  // A run_id written by hand (or on another machine) is kept, so the file and the store agree.
  const id = doc.meta.runId && RUN_ID.test(doc.meta.runId) ? doc.meta.runId : run.id;
  return { ...run, id, criteriaVersion: 1, prdPath: input.path };
}

function indexEntry(doc: PrdDocument, input: PrdStoreSyncInput, runId: string | undefined, at: string) {
  return {
    path: input.path,
    prdId: doc.meta.id ?? input.path,
    ...(runId ? { runId } : {}),
    title: doc.title?.text ?? doc.meta.title ?? '',
    status: doc.meta.status ?? 'DRAFT',
    contentHash: crc32(new TextEncoder().encode(input.text)).toString(16).padStart(8, '0'),
    updatedAt: at,
  };
}

function decision(runId: string, at: string, what: string, rationale: string, criteriaVersion: number): Decision {
  return Decision.parse({ id: newId('dec', new Date(at)), runId, at, by: 'user', decision: what, rationale, alternatives: [], criteriaVersion });
}

/** What the file says of a criterion, the part a user can edit. */
function stated(c: AnyCriterion): PrdCriterionData {
  return { id: c.id, kind: c.kind, checked: c.status === 'DONE', text: c.text, priority: c.priority, source: c.source, ...(c.domain ? { domain: c.domain } : {}), ...(c.verify ? { verify: c.verify } : {}) };
}

/**
 * The next version's rows: the file's criteria, carrying over what only the store knows
 * (outcome, claim, timings) for rows whose statement did not change; a changed statement
 * or verify method must be verified again, so it loses its outcome.
 */
function reconcile(stored: readonly AnyCriterion[], wanted: readonly AnyCriterion[], at: string): { criteria: AnyCriterion[]; changes: string[] } {
  const before = new Map(stored.map((c) => [c.id, c]));
  const changes: string[] = [];
  const criteria = wanted.map((w): AnyCriterion => {
    const old = before.get(w.id);
    if (!old) {
      changes.push(`${w.id} added`);
      return w;
    }
    const a = stated(old);
    const b = stated(w);
    const changed = (['text', 'priority', 'source', 'domain', 'verify', 'checked', 'kind'] as const).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
    if (changed.length === 0) return old;
    changes.push(...changed.map((k) => (k === 'checked' ? `${w.id} ${b.checked ? 'checked' : 'unchecked'}` : `${w.id} ${k}`)));
    const restated = changed.some((k) => k === 'text' || k === 'verify' || k === 'kind');
    const { outcome: _o, verifiedAt: _v, ...kept } = old;
    const status = b.checked ? 'DONE' : old.status === 'DONE' ? 'PENDING' : old.status;
    return { ...(restated ? kept : old), ...w, status, createdAt: old.createdAt, updatedAt: at } as AnyCriterion;
  });
  for (const id of before.keys()) if (!wanted.some((w) => w.id === id)) changes.push(`${id} removed`);
  return { criteria, changes };
}
