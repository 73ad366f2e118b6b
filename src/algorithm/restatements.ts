import { EDITED_IN_THE_ISC_TABLE } from '../store/run-edits';
import { newId } from '../model/ids';
import { Decision, type AnyCriterion } from '../model';
import type { AlgorithmState } from '../model/algorithm-state';

/** A person's new statement of one criterion of a run that is going (the ISC table's inline edit). */
export interface Restatement {
  readonly criterionId: string;
  readonly text: string;
}

/**
 * Criteria restated while their run goes. The run's session hands them to the engine,
 * never to the store behind its back; the engine applies them before its next node as one
 * new criteria version, with the person's decision, and pins them (the manager's later
 * phases keep a pinned criterion as written), so nothing it commits afterwards can
 * overwrite them.
 */
export class RestatementInbox {
  private readonly queued = new Map<string, Restatement[]>();

  add(runId: string, restatement: Restatement): void {
    this.queued.set(runId, [...(this.queued.get(runId) ?? []), restatement]);
  }

  /** The state with every queued restatement applied, and what changed (none: the same state). */
  apply(state: AlgorithmState, now: Date): { state: AlgorithmState; changed: readonly string[]; refused: readonly string[] } {
    const queued = this.queued.get(state.run.id);
    if (!queued || queued.length === 0) return { state, changed: [], refused: [] };
    this.queued.delete(state.run.id);
    const at = now.toISOString();
    const next = structuredClone(state);
    const changed: string[] = [];
    const refused: string[] = [];
    for (const r of queued) {
      const i = next.criteria.findIndex((c) => c.id === r.criterionId);
      const text = r.text.trim().replace(/\s+/g, ' ');
      if (i < 0) refused.push(`${r.criterionId} is not a criterion of the run`);
      else if (text === '') refused.push(`${r.criterionId}: a criterion needs text`);
      else if (text !== next.criteria[i]!.text) {
        const old = next.criteria[i]!;
        const { outcome: _o, verifiedAt: _v, ...kept } = old;
        next.criteria[i] = { ...kept, text, status: old.status === 'DONE' ? 'PENDING' : old.status, updatedAt: at } as AnyCriterion;
        changed.push(`${r.criterionId} text: "${old.text}" → "${text}"`);
        // The person's words: the manager's later phases keep them as written, like a PRD's criteria.
        if (!next.memo.pinned.includes(r.criterionId)) next.memo.pinned.push(r.criterionId);
      }
    }
    if (changed.length === 0) return { state, changed, refused };
    const version = next.run.criteriaVersion + 1;
    next.run = { ...next.run, criteriaVersion: version, updatedAt: at };
    next.decisions.push(Decision.parse({ id: newId('dec', now), runId: next.run.id, at, by: 'user', decision: EDITED_IN_THE_ISC_TABLE, rationale: changed.join('; '), alternatives: [], criteriaVersion: version }));
    return { state: next, changed, refused };
  }
}
