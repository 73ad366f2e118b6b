import type { CandidateEvidence, CriteriaVerification, CriteriaVerifier, CriteriaVerifyOptions } from '../core/algorithm/ports';
import type { AnyCriterion, CriterionResult } from '../core/model';
import { verifyCriteria } from '../verify/engine';
import type { VerifyHost } from '../verify/types';

/**
 * The verification engine behind the Algorithm's verifier port. Criteria are verified in
 * groups by the candidate that worked them, so each CUSTOM judge sees that one candidate
 * (the auditor view) and never another.
 */
export class VerificationEngineVerifier implements CriteriaVerifier {
  constructor(
    private readonly host: VerifyHost,
    /** Workspace-relative files GREP never searches, e.g. the run's PRD. */
    private readonly excludeFiles: () => readonly string[] = () => [],
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
    let passed = true;
    for (const group of groups.values()) {
      const set = await verifyCriteria(group.criteria, this.host, {
        signal: options.signal,
        parallelism: options.parallelism,
        timeoutMs: options.timeoutMs,
        excludeFiles: [...this.excludeFiles()],
        criteriaVersion: options.criteriaVersion,
        ...(group.candidate ? { candidate: { id: group.candidate.id, summary: group.candidate.summary, evidence: [...group.candidate.evidence] } } : {}),
        earlierResults: group.criteria.flatMap((c) => [...options.earlierResults(c.id)]),
      });
      results.push(...set.results);
      for (const c of set.commands?.approved ?? []) approvedCommands.add(c);
      passed &&= set.passed;
    }
    const pass = results.filter((r) => r.outcome === 'PASS').length;
    return { results, passed, summary: `${pass}/${results.length} PASS by the verification engine`, approvedCommands: [...approvedCommands] };
  }
}
