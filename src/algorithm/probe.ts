import type { AnyCriterion, CriterionResult } from '../model';
import type { AlgorithmState } from '../model/algorithm-state';
import type { EventDraft } from './context';
import type { CriteriaVerifier } from './ports';

/**
 * Probe the probes: when criteria are accepted — by a run, once BUILD has made
 * their checks concrete and before EXECUTE changes anything, or by a person locking them
 * (src/app/probe.ts) — every runnable check is run once on the workspace as it is. A criterion
 * about new behaviour whose check already passes may be a check that cannot fail (the demo's
 * "farewell throws…" took "m.farewell is not a function" for the expected error): it is flagged,
 * not failed. Anti-criteria state what must not become true, so they are expected to pass before
 * any work: never flagged.
 */
export const PROBE_WORDS = 'passes before any work — can this check fail?';

/** The checks a probe runs: mechanical ones. A model's judgement (CUSTOM) or a browser scenario says nothing about a check. */
export const PROBE_RUNNABLE: ReadonlySet<string> = new Set(['CLI', 'TEST', 'TASK', 'GREP', 'READ', 'STATIC']);

export interface ProbeFlag {
  readonly id: string;
  /** The check's own evidence that it passed. */
  readonly evidence: string;
}

/** Which criteria a probe flags: a criterion (never an anti-criterion) with a runnable check that PASSES now. */
export function probeFlags(criteria: readonly Pick<AnyCriterion, 'id' | 'kind' | 'verify'>[], results: readonly Pick<CriterionResult, 'criterionId' | 'outcome' | 'evidence'>[]): ProbeFlag[] {
  const byId = new Map(results.map((r) => [r.criterionId, r]));
  return criteria.flatMap((c) => {
    const r = byId.get(c.id);
    if (c.kind !== 'criterion' || !c.verify || !PROBE_RUNNABLE.has(c.verify.type) || r?.outcome !== 'PASS') return [];
    return [{ id: c.id, evidence: r.evidence }];
  });
}

/**
 * The criteria a run's probe checks: the ones "about new behaviour", i.e. the ones the run is
 * about to build — every criterion with a runnable check, except one that already PASSED in a
 * verification before this run's work (a PRD row given checked, a row kept passing from an
 * earlier report): that is a known state of the workspace, not a claim about new work.
 * Anti-criteria are never probed (see probeFlags).
 */
export function probeCandidates(criteria: readonly AnyCriterion[]): AnyCriterion[] {
  return criteria.filter((c) => c.kind === 'criterion' && c.verify !== undefined && PROBE_RUNNABLE.has(c.verify.type) && c.outcome !== 'PASS');
}

export interface ProbeStepDeps {
  /**
   * A verifier that never asks a person: a command runs only when it is approved without a
   * question (the allow-list, `--approve commands`, "Always for this run") and was not denied;
   * any other command is not run, and its criterion is simply not probed.
   */
  readonly prober: CriteriaVerifier;
  /** The run's signal: cancelling the run cancels the probe. */
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  readonly parallelism: number;
  readonly emit: (event: EventDraft) => void;
}

/**
 * The run's probe, once, when its criteria are accepted (after BUILD's gate, before EXECUTE):
 * records the flagged ids in `memo.probed` (the PRD sync writes a "Probe" note under each, see
 * prd-sync.ts) and says so in a run event. It costs the run only the checks' own time: no model
 * call. A probe that cannot run is a note, never a failure of the run.
 */
export async function probeAccepted(state: AlgorithmState, deps: ProbeStepDeps): Promise<void> {
  const candidates = probeCandidates(state.criteria);
  if (candidates.length === 0) {
    state.memo.probed = [];
    return;
  }
  let flags: ProbeFlag[];
  try {
    const out = await deps.prober.verify(candidates, {
      signal: deps.signal,
      level: state.run.effort,
      ...(state.run.prdPath ? { prdPath: state.run.prdPath } : {}),
      parallelism: deps.parallelism,
      timeoutMs: deps.timeoutMs,
      criteriaVersion: state.run.criteriaVersion,
      candidateFor: () => undefined,
      earlierResults: () => [],
    });
    flags = probeFlags(candidates, out.results);
  } catch (error) {
    if (deps.signal.aborted) return;
    deps.emit({ kind: 'note', message: `the probe of the accepted criteria could not run (${error instanceof Error ? error.message : String(error)}); nothing is flagged`, role: 'system' });
    return;
  }
  if (deps.signal.aborted) return;
  state.memo.probed = flags.map((f) => f.id);
  if (flags.length === 0) {
    deps.emit({ kind: 'verification', message: `probe: ${candidates.length} check${candidates.length === 1 ? '' : 's'} of new behaviour run on the workspace as it is; none passes before any work`, role: 'system' });
    return;
  }
  const ids = flags.map((f) => f.id).join(', ');
  deps.emit({ kind: 'verification', message: `probe: ${ids} ${flags.length === 1 ? PROBE_WORDS : PROBE_WORDS.replace('passes', 'pass').replace('this check', 'these checks')}`, role: 'system' });
}
