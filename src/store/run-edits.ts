import { newId } from '../model/ids';
import { AnyCriterion, Decision } from '../model';
import type { Store } from './store';

export const EDITED_IN_THE_ISC_TABLE = 'edited in the ISC table';

export type TableEdit =
  | { kind: 'edited'; version: number }
  | { kind: 'unchanged' }
  | { kind: 'refused'; reason: string };

type EditStore = Pick<Store, 'runs' | 'criteria' | 'batch' | 'readOnly'>;

/**
 * A criterion's new statement from the ISC table becomes the run's next criteria version,
 * with a decision by the user saying what changed — as a saved PRD does ("edited in the
 * PRD", src/prd/store-sync.ts). The restated row loses its outcome: it must be verified
 * again. Other rows carry over unchanged.
 */
export function editCriterionText(store: EditStore, runId: string, criterionId: string, text: string, now = new Date()): TableEdit {
  if (store.readOnly) return { kind: 'refused', reason: 'the store is open read-only in this window (another window is writing it)' };
  const run = store.runs.get(runId);
  if (!run) return { kind: 'refused', reason: `there is no run ${runId} in the store` };
  const latest = store.criteria.latestVersion(runId);
  const current = latest === undefined ? [] : store.criteria.list(runId, latest);
  const old = current.find((c) => c.id === criterionId);
  if (!old) return { kind: 'refused', reason: `${criterionId} is not a criterion of the run's latest version` };
  const wanted = text.trim().replace(/\s+/g, ' ');
  if (wanted === '') return { kind: 'refused', reason: 'a criterion needs text; to drop one, edit the PRD' };
  if (wanted === old.text) return { kind: 'unchanged' };
  const at = now.toISOString();
  const { outcome: _o, verifiedAt: _v, ...kept } = old;
  const restated = AnyCriterion.parse({ ...kept, text: wanted, status: old.status === 'DONE' ? 'PENDING' : old.status, updatedAt: at });
  const version = Math.max(latest ?? 0, run.criteriaVersion) + 1;
  const criteria = current.map((c) => (c.id === criterionId ? restated : c));
  store.batch((tx) => {
    tx.criteria.saveVersion(runId, version, criteria);
    tx.runs.save({ ...run, criteriaVersion: version, updatedAt: at });
    tx.decisions.save(
      Decision.parse({ id: newId('dec', now), runId, at, by: 'user', decision: EDITED_IN_THE_ISC_TABLE, rationale: `${criterionId} text: "${old.text}" → "${wanted}"`, alternatives: [], criteriaVersion: version }),
    );
  });
  return { kind: 'edited', version };
}

/**
 * Removes a run and every row that belongs to it: criteria, packets, candidates, reports,
 * decisions, events, steps and checkpoints (by foreign key), its reflections and its PRD
 * index entry. Ratings stay — they are the user's history and feed the rolling average —
 * and the PRD file in the workspace is never touched here.
 */
export function deleteRun(store: Pick<Store, 'batch' | 'readOnly'>, runId: string): void {
  store.batch((tx) => {
    tx.reflections.deleteWhere('run_id = ?', [runId]);
    tx.prdIndex.deleteWhere('run_id = ?', [runId]);
    tx.runs.delete(runId);
  });
}
