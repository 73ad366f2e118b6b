import type { AnyCriterion, EffortLevel, EffortTable } from '../model';
import { diagnostic, rangeOn, type PrdDiagnostic } from '../prd/diagnostics';
import type { Store } from '../store/store';
import { recordVerification } from '../verify/store-verification';
import type { VerifySetResult } from '../verify/types';
import { prdEffort } from './effort';
import { loadVerifySource, type VerifySource } from './verify-source';

/** A PRD (or PAI ISA) ready to verify: its source, the criteria to verify, its level. */
export interface PreparedPrd extends Omit<VerifySource, 'criteria'> {
  readonly criteria: readonly AnyCriterion[];
  readonly level: EffortLevel;
  /** The criteria version the outcomes belong to: the file's `criteria_version`, else 1. */
  readonly criteriaVersion: number;
  /** Said once, not an error: e.g. an effort name this workspace does not know. */
  readonly warnings: readonly string[];
}

/** A PRD that cannot be verified as it stands: every problem with its line, and one sentence for a summary. */
export interface RefusedPrd {
  readonly ok: false;
  readonly problems: readonly PrdDiagnostic[];
  readonly summary: string;
}

/**
 * The one reading of a requirements file for verification (command line, Verify Criteria,
 * the Testing view, the done gate, the MCP server): a PRD (this product's format, PAI v2) or a
 * PAI ISA, parsed and linted (an error refuses it, with its line), its criteria converted
 * (all, or the ids in `only`), its level picked.
 */
export function preparePrd(text: string, options: { name: string; effortTable: EffortTable; only?: readonly string[]; effort?: EffortLevel; now?: Date }): PreparedPrd | RefusedPrd {
  const source = loadVerifySource(text, options.name, options.now ?? new Date());
  if (!source.ok) return source;
  // `only` names criteria as the file does (an ISA's C1, ISC-2.1); the engine knows its own ids.
  const wanted = options.only ? new Set(source.engineIds(options.only).ids) : undefined;
  const criteria = source.criteria.filter((c) => !wanted || wanted.has(c.id));
  if (criteria.length === 0) {
    return { ok: false, problems: [diagnostic('error', 'no-criteria', rangeOn(0, 0), `no criteria with the ids ${[...(options.only ?? [])].join(', ')}`)], summary: `${options.name} has no criteria with those ids to verify` };
  }
  const effort = options.effort ? { level: options.effort } : prdEffort(source.document.meta.effort, options.effortTable);
  return {
    ...source,
    criteria,
    level: effort.level,
    criteriaVersion: source.document.meta.criteriaVersion ?? 1,
    warnings: 'warning' in effort && effort.warning ? [`effort_level ${effort.warning}`] : [],
  };
}

/** Stores a PRD's verification (see recordVerification: a run's criteria version is never created by it). */
export function storePrdVerification(store: Store, prd: PreparedPrd, input: { prdPath: string; text: string; set: VerifySetResult; effortTable: EffortTable; workspaceFolder?: string; now?: Date }): ReturnType<typeof recordVerification> {
  return recordVerification(store, { ...input, document: prd.document, criteria: prd.criteria, effort: prd.level });
}
