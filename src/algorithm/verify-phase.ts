import type { AnyCriterion, CriterionResult, VerificationReport } from '../model';
import { methodCommand } from '../model/verification-method';
import type { NodeContext } from './context';
import type { CandidateEvidence } from './ports';
import type { AlgorithmState } from '../model/algorithm-state';

/**
 * VERIFY: the verifier runs each criterion's method and the engine writes
 * the report. The verifier receives the criteria, and per criterion only the candidate that
 * worked it and the earlier results on it — the auditor view. Past the compress threshold,
 * criteria that passed last time keep that result and are not run again.
 */
export async function verify(state: AlgorithmState, ctx: NodeContext): Promise<void> {
  const previous = state.report;
  const reuse = new Map<string, CriterionResult>();
  if (state.memo.compressed && previous) {
    for (const r of previous.results) if (r.outcome === 'PASS' && state.criteria.some((c) => c.id === r.criterionId)) reuse.set(r.criterionId, r);
  }
  const toRun = state.criteria.filter((c) => !reuse.has(c.id));
  const ownerOf = new Map<string, CandidateEvidence>();
  for (const packet of state.packets) {
    const candidate = [...state.candidates].reverse().find((c) => c.packetId === packet.id);
    if (!candidate) continue;
    for (const id of packet.criterionIds) ownerOf.set(id, { id: candidate.id, summary: candidate.summary, evidence: candidate.evidence });
  }
  const started = ctx.clock.now().getTime();
  const outcome = toRun.length === 0 ? { results: [], passed: true, summary: 'nothing to re-verify' } : await ctx.verifier.verify(toRun, {
    signal: ctx.signal,
    level: state.run.effort,
    ...(state.run.prdPath ? { prdPath: state.run.prdPath } : {}),
    parallelism: ctx.spec.parallelism,
    // The node's share of the budget bounds each criterion, so a report comes out within it (NodeDeadline).
    timeoutMs: Math.min(ctx.verifyTimeoutMs, ctx.allowanceMs),
    criteriaVersion: state.run.criteriaVersion,
    candidateFor: (id) => ownerOf.get(id),
    earlierResults: (id) => (previous?.results ?? []).filter((r) => r.criterionId === id),
    onEvent: (e) => ctx.emit(state, { ...e, phase: 'VERIFY' }),
  });
  // What was approved to run may now be shown in the PRD (prd-sync.ts); approvals only add up over a run.
  for (const c of 'approvedCommands' in outcome ? (outcome.approvedCommands ?? []) : []) if (!state.memo.approvedCommands.includes(c)) state.memo.approvedCommands.push(c);
  // A person's denial changes what runs, never what the PRD says: the method stays, marked "Not approved".
  const denied = new Set('deniedCommands' in outcome ? (outcome.deniedCommands ?? []) : []);
  const approvedNow = new Set('approvedCommands' in outcome ? (outcome.approvedCommands ?? []) : []);
  state.memo.deniedCommands = [...state.memo.deniedCommands.filter((c) => !approvedNow.has(c)), ...[...denied].filter((c) => !state.memo.deniedCommands.includes(c))];
  const byId = new Map<string, CriterionResult>(reuse);
  for (const r of outcome.results) if (toRun.some((c) => c.id === r.criterionId)) byId.set(r.criterionId, r);
  const results = state.criteria.map(
    (c): CriterionResult =>
      byId.get(c.id) ?? { criterionId: c.id, outcome: 'UNKNOWN', evidence: 'the verifier returned no result for this criterion', durationMs: 0, failureLabel: 'EXECUTION_ERROR', locations: [] },
  );
  const critical = state.criteria.filter((c) => c.priority === 'CRITICAL');
  // Fail-closed twice over: the verifier's own verdict and every CRITICAL result must agree.
  const passed = outcome.passed && critical.every((c) => results.find((r) => r.criterionId === c.id)?.outcome === 'PASS');
  if (!passed) stopOnDenial(state, critical, results, denied);
  const at = ctx.clock.now().toISOString();
  const passing = results.filter((r) => r.outcome === 'PASS').length;
  const report: VerificationReport = {
    id: `rep-${state.run.id.slice(4)}-${state.run.iteration}`,
    runId: state.run.id,
    iteration: state.run.iteration,
    criteriaVersion: state.run.criteriaVersion,
    results,
    passed,
    summary: `${passing}/${results.length} passing${reuse.size > 0 ? ` (${reuse.size} kept from the last report)` : ''}; ${outcome.summary}`,
    createdAt: at,
  };
  state.report = report;
  state.criteria = state.criteria.map((c): AnyCriterion => {
    const r = results.find((x) => x.criterionId === c.id)!;
    return { ...c, outcome: r.outcome, verifiedAt: at, updatedAt: at };
  });
  if (passing > state.memo.bestPassing || !state.memo.bestReportId) {
    state.memo.bestPassing = passing;
    state.memo.bestReportId = report.id;
  }
  ctx.emit(state, { kind: 'verification', message: report.summary, role: 'verifier', durationMs: ctx.clock.now().getTime() - started });
}

/**
 * A person said no to commands that prove unmet CRITICAL criteria: the run ends BLOCKED, waiting
 * for them, with the commands named. Another iteration would only ask the same question again,
 * and the budget did not run out.
 */
function stopOnDenial(state: AlgorithmState, critical: readonly AnyCriterion[], results: readonly CriterionResult[], denied: ReadonlySet<string>): void {
  if (denied.size === 0 || state.memo.stopping) return;
  const waiting = critical.filter((c) => {
    const command = c.verify ? methodCommand(c.verify) : undefined;
    return command !== undefined && denied.has(command) && results.find((r) => r.criterionId === c.id)?.outcome !== 'PASS';
  });
  if (waiting.length === 0) return;
  const commands = [...new Set(waiting.map((c) => methodCommand(c.verify!)!))];
  const one = commands.length === 1;
  state.memo.stopping = 'BLOCKED';
  state.memo.stopReason = `needs your approval: ${commands.map((c) => `\`${c}\``).join(', ')} ${one ? 'was' : 'were'} not approved, so ${waiting.map((c) => c.id).join(', ')} cannot be proven. Run again and approve ${one ? 'it' : 'them'} when asked, or allow ${one ? 'it' : 'them'} (the setting idealState.verify.allowedCommands; on the command line, --approve commands)`;
}
