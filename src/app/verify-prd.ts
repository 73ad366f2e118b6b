import type { AnyCriterion, CriterionResult, EffortLevel, EffortTable } from '../core/model';
import { checkPrd, diagnostic, rangeOn, toCoreCriterion, type PrdDiagnostic, type PrdDocument } from '../prd';
import type { Store } from '../store/store';
import { verifyCriteria } from '../verify/engine';
import { recordVerification } from '../verify/store-verification';
import type { Coverage, VerifyHost, VerifySetResult } from '../verify/types';
import { CRITERION_TIMEOUT_MS } from './defaults';
import { prdEffort } from './effort';

/** A PRD ready to verify: its document, the criteria to verify, its level. */
export interface PreparedPrd {
  readonly ok: true;
  readonly document: PrdDocument;
  readonly criteria: readonly AnyCriterion[];
  readonly level: EffortLevel;
  /** The criteria version the outcomes belong to: the PRD's `criteria_version`, else 1. */
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
 * The one reading of a PRD for verification (command line, Verify Criteria, the Testing
 * view, the done gate): parse and lint it (an error refuses it, with its line), convert its
 * criteria (all, or the ids in `only`), and pick its level.
 */
export function preparePrd(text: string, options: { name: string; effortTable: EffortTable; only?: readonly string[]; effort?: EffortLevel; now?: Date }): PreparedPrd | RefusedPrd {
  const { document, diagnostics } = checkPrd(text);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  if (errors.length > 0) return { ok: false, problems: errors, summary: `${options.name} has ${errors.length} error${errors.length === 1 ? '' : 's'}; fix ${errors.length === 1 ? 'it' : 'them'} before verifying` };
  const at = (options.now ?? new Date()).toISOString();
  const wanted = options.only ? new Set(options.only) : undefined;
  const criteria: AnyCriterion[] = [];
  for (const c of document.criteria.filter((c) => !wanted || wanted.has(c.id))) {
    const core = toCoreCriterion(c, at);
    if (!core.ok) return { ok: false, problems: [diagnostic('error', 'invalid-criterion', rangeOn(c.line, 0), core.message)], summary: `${options.name} has a criterion that cannot be verified` };
    criteria.push(core.criterion);
  }
  if (criteria.length === 0) {
    const message = wanted ? `no criteria with the ids ${[...wanted].join(', ')}` : 'no criteria to verify; add "- [ ] ISC-1: …" lines under "## Ideal State Criteria"';
    return { ok: false, problems: [diagnostic('error', 'no-criteria', rangeOn(0, 0), message)], summary: `${options.name} has no criteria${wanted ? ' with those ids' : ''} to verify` };
  }
  const effort = options.effort ? { level: options.effort } : prdEffort(document.meta.effort, options.effortTable);
  return { ok: true, document, criteria, level: effort.level, criteriaVersion: document.meta.criteriaVersion ?? 1, warnings: 'warning' in effort && effort.warning ? [`effort_level ${effort.warning}`] : [] };
}

export interface PrdVerifyRun {
  readonly host: VerifyHost;
  readonly effortTable: EffortTable;
  /** Workspace-relative (forward slashes) when the PRD is inside the workspace: its own text is not evidence. */
  readonly prdPath?: string;
  readonly signal?: AbortSignal;
  /** Per criterion, unless its method names its own (default CRITERION_TIMEOUT_MS). */
  readonly timeoutMs?: number;
  readonly onResult?: (result: CriterionResult, criterion: AnyCriterion, coverage: Coverage) => void;
}

/** Verifies a prepared PRD at its level's parallelism. */
export function verifyPrepared(prd: PreparedPrd, run: PrdVerifyRun): Promise<VerifySetResult> {
  return verifyCriteria([...prd.criteria], run.host, {
    parallelism: run.effortTable.levels[prd.level].parallelism,
    timeoutMs: run.timeoutMs ?? CRITERION_TIMEOUT_MS,
    criteriaVersion: prd.criteriaVersion,
    ...(run.signal ? { signal: run.signal } : {}),
    ...(run.prdPath ? { excludeFiles: [run.prdPath] } : {}),
    ...(run.onResult ? { onResult: run.onResult } : {}),
  });
}

/** Stores a PRD's verification (see recordVerification: a run's criteria version is never created by it). */
export function storePrdVerification(store: Store, prd: PreparedPrd, input: { prdPath: string; text: string; set: VerifySetResult; effortTable: EffortTable; workspaceFolder?: string; now?: Date }): ReturnType<typeof recordVerification> {
  return recordVerification(store, { ...input, document: prd.document, criteria: prd.criteria, effort: prd.level });
}
