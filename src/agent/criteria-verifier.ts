import type { CandidateEvidence, CriteriaVerification, CriteriaVerifier, CriteriaVerifyOptions } from '../algorithm/ports';
import type { AnyCriterion, CriterionResult } from '../model';
import { verifyCriteria } from '../verify/verify-criteria';
import type { CriterionJudge, VerifyHost } from '../verify/types';

/**
 * The verification engine behind the Algorithm's verifier port. Criteria are verified in
 * groups by the candidate that worked them, so each CUSTOM judge sees that one candidate
 * (the auditor view) and never another.
 */
export class VerificationEngineVerifier implements CriteriaVerifier {
  constructor(
    private readonly host: Omit<VerifyHost, 'judge'>,
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
    const results: CriterionResult[] = [];
    const approvedCommands = new Set<string>();
    const deniedCommands = new Set<string>();
    let passed = true;
    const judge = this.judgeFor?.(options);
    const host: VerifyHost = judge ? { ...this.host, judge } : this.host;
    for (const group of groups.values()) {
      const set = await verifyCriteria(group.criteria, host, {
        signal: options.signal,
        parallelism: options.parallelism,
        timeoutMs: options.timeoutMs,
        // The PRD's own text is not evidence that a criterion holds.
        excludeFiles: options.prdPath ? [options.prdPath] : [],
        criteriaVersion: options.criteriaVersion,
        ...(group.candidate ? { candidate: { id: group.candidate.id, summary: group.candidate.summary, evidence: [...group.candidate.evidence] } } : {}),
        earlierResults: group.criteria.flatMap((c) => [...options.earlierResults(c.id)]),
      });
      results.push(...set.results);
      for (const c of set.commands?.approved ?? []) approvedCommands.add(c);
      for (const c of set.commands?.refused ?? []) deniedCommands.add(c.command);
      passed &&= set.passed;
    }
    const pass = results.filter((r) => r.outcome === 'PASS').length;
    return { results, passed, summary: `${pass}/${results.length} PASS by the verification engine`, approvedCommands: [...approvedCommands], deniedCommands: [...deniedCommands] };
  }
}
