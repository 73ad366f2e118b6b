import type { CandidateEvidence, CriteriaVerification, CriteriaVerifier, CriteriaVerifyOptions } from '../algorithm/ports';
import type { AnyCriterion, CriterionResult, EffortTable } from '../model';
import type { CriterionJudge, VerifyHost, VerifySetResult } from '../verify/types';
import { composeVerification } from './compose-verification';

/**
 * A run's own verification (VERIFY, the probe, a loop's artifact), an adapter over
 * composeVerification like every other surface: the run's criteria are the source, the run's
 * policy answers for their commands (the host's approver), and the run itself is where the report
 * goes: the results come back to the engine, which commits them as the run's events.
 *
 * Criteria are verified in groups by the candidate that worked them, so each CUSTOM judge sees
 * that one candidate (the auditor view) and never another.
 */
export class RunVerifier implements CriteriaVerifier {
  constructor(
    private readonly host: Omit<VerifyHost, 'judge'>,
    private readonly effortTable: EffortTable,
    /** The CUSTOM judge for one verification: routed for the run's level, its spending recorded as the run's events. */
    private readonly judgeFor?: (options: CriteriaVerifyOptions) => CriterionJudge | undefined,
  ) {}

  async verify(criteria: readonly AnyCriterion[], options: CriteriaVerifyOptions): Promise<CriteriaVerification> {
    const groups = new Map<string, { candidate?: CandidateEvidence; criteria: AnyCriterion[] }>();
    for (const c of criteria) {
      const candidate = options.candidateFor(c.id);
      const key = candidate?.id ?? '';
      if (!groups.has(key)) groups.set(key, { ...(candidate ? { candidate } : {}), criteria: [] });
      groups.get(key)!.criteria.push(c);
    }
    const report = new RunReport();
    const judge = this.judgeFor?.(options);
    const host: VerifyHost = judge ? { ...this.host, judge } : this.host;
    for (const group of groups.values()) {
      await composeVerification({
        source: {
          kind: 'criteria',
          criteria: group.criteria,
          level: options.level,
          criteriaVersion: options.criteriaVersion,
          parallelism: options.parallelism,
          ...(group.candidate ? { candidate: { id: group.candidate.id, summary: group.candidate.summary, evidence: [...group.candidate.evidence] } } : {}),
          earlierResults: group.criteria.flatMap((c) => [...options.earlierResults(c.id)]),
        },
        effortTable: this.effortTable,
        host,
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        // The PRD's own text is not evidence that a criterion holds.
        ...(options.prdPath ? { prdPath: options.prdPath } : {}),
        report: async ({ set }) => report.add(set),
      });
    }
    return report.verification();
  }
}

/** Where a run's verification reports: one verification of the run, gathered from its groups for the engine to commit. */
class RunReport {
  private readonly results: CriterionResult[] = [];
  private readonly approved = new Set<string>();
  private readonly denied = new Set<string>();
  private passed = true;

  add(set: VerifySetResult): void {
    this.results.push(...set.results);
    for (const c of set.commands?.approved ?? []) this.approved.add(c);
    for (const c of set.commands?.refused ?? []) this.denied.add(c.command);
    this.passed &&= set.passed;
  }

  verification(): CriteriaVerification {
    const pass = this.results.filter((r) => r.outcome === 'PASS').length;
    return { results: this.results, passed: this.passed, summary: `${pass}/${this.results.length} PASS by the verification engine`, approvedCommands: [...this.approved], deniedCommands: [...this.denied] };
  }
}
