import * as assert from 'node:assert/strict';
import type { CandidateEvidence, CriteriaVerifyOptions } from '../../../src/algorithm/ports';
import { RunVerifier } from '../../../src/app/run-verifier';
import { shippedEffortTable } from '../../../src/model/effort-table';
import type { AuditorView, CommandApproval } from '../../../src/verify/types';
import { criterion, workspace } from '../support/verify-helpers';

function options(candidates: Record<string, CandidateEvidence>, overrides: Partial<CriteriaVerifyOptions> = {}): CriteriaVerifyOptions {
  return {
    signal: new AbortController().signal,
    level: 'FAST',
    parallelism: 2,
    timeoutMs: 20_000,
    criteriaVersion: 4,
    candidateFor: (id) => candidates[id],
    earlierResults: () => [],
    ...overrides,
  };
}

describe("RunVerifier: a run's own verification, composed as every verification is", () => {
  it('each CUSTOM judge sees only the candidate that worked its criterion, at the run\'s criteria version', async () => {
    const root = workspace({ 'a.txt': 'a\n' });
    const one = criterion({ type: 'CUSTOM', description: 'reads well' });
    const two = criterion({ type: 'CUSTOM', description: 'reads well too' });
    const seen: AuditorView[] = [];
    const verifier = new RunVerifier({ workspaceRoot: root }, shippedEffortTable(), () => ({
      label: 'a judge that records what it sees',
      judge: async (view) => (seen.push(view), { outcome: 'PASS', evidence: `judged ${view.candidate?.id}` }),
    }));
    const candidates = {
      [one.id]: { id: 'cand-A', summary: 'A did it', evidence: ['a.txt'] },
      [two.id]: { id: 'cand-B', summary: 'B did it', evidence: ['b.txt'] },
    } as Record<string, CandidateEvidence>;
    const v = await verifier.verify([one, two], options(candidates));
    assert.deepEqual(seen.map((s) => [s.criterion.id, s.candidate?.id, s.criteriaVersion]), [[one.id, 'cand-A', 4], [two.id, 'cand-B', 4]]);
    assert.deepEqual(v.results.map((r) => r.outcome), ['PASS', 'PASS']);
    assert.equal(v.passed, true);
    assert.equal(v.summary, '2/2 PASS by the verification engine');
  });

  it("reports to the run what its policy approved and refused, across every candidate's group", async () => {
    const root = workspace();
    const ok = criterion({ type: 'CLI', command: 'node -e "process.exit(0)"' });
    const no = criterion({ type: 'CLI', command: 'node -e "process.exit(1)"' });
    const asked: string[][] = [];
    const approver = {
      approve: async (commands: string[]): Promise<CommandApproval> => {
        asked.push(commands);
        const only = commands.filter((c) => c.includes('exit(0)'));
        return { approved: only.length > 0, only, reason: 'not approved by the policy' };
      },
    };
    const verifier = new RunVerifier({ workspaceRoot: root, approver }, shippedEffortTable());
    const candidates = { [ok.id]: { id: 'cand-A', summary: '', evidence: [] }, [no.id]: { id: 'cand-B', summary: '', evidence: [] } } as Record<string, CandidateEvidence>;
    const v = await verifier.verify([ok, no], options(candidates));
    assert.equal(asked.length, 2, "each candidate's group asks the run's policy for its own commands");
    assert.deepEqual(v.approvedCommands, ['node -e "process.exit(0)"']);
    assert.deepEqual(v.deniedCommands, ['node -e "process.exit(1)"']);
    assert.deepEqual(v.results.map((r) => r.outcome), ['PASS', 'UNKNOWN'], 'a refused command leaves its criterion UNKNOWN');
    assert.equal(v.passed, false);
  });
});
