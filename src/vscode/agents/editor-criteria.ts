import * as vscode from 'vscode';
import type { AnyCriterion, EffortTable } from '../../model';
import type { StoreHost } from '../store-host';
import { engine } from '../engine';
import type { PrdTarget } from './prd-target';
import type { CriterionRow } from '../../app/done-gate';
import { ToolInputError } from './tool-text';

/** The PRD/ISA as the editor holds it (unsaved changes included), prepared for verification; its errors refuse it with their line. */
export async function preparedTarget(target: PrdTarget, effortTable: EffortTable, only?: readonly string[]) {
  const text = (await vscode.workspace.openTextDocument(target.uri)).getText();
  const prd = engine().preparePrd(text, { name: target.relative, effortTable, ...(only ? { only } : {}) });
  if (!prd.ok) {
    const first = prd.problems[0];
    throw new ToolInputError(`${prd.summary}${first ? ` — ${target.relative}:${first.line + 1}: ${first.message}` : ''}`);
  }
  return { prd, text };
}

/** Each criterion with the outcome this workspace's store last recorded for it, and whether a change made that outcome stale. */
export async function criteriaRows(stores: StoreHost, relative: string, criteria: readonly AnyCriterion[]): Promise<CriterionRow[]> {
  const store = await stores.get();
  const runId = store.prdIndex.where('path = ?', [relative])[0]?.runId;
  const stored = new Map((runId ? store.criteria.list(runId) : []).map((c) => [c.id, c]));
  const marked = new Set((runId ? store.staleMarks.list(runId) : []).map((m) => m.criterionId));
  return engine().criterionRows(criteria, stored, (id) => marked.has(id));
}

/** The run the store keeps for this PRD, if it was ever synced or verified (the ISC table shows it). */
export async function runOfPrd(stores: StoreHost, relative: string): Promise<string | undefined> {
  return (await stores.get()).prdIndex.where('path = ?', [relative])[0]?.runId;
}
