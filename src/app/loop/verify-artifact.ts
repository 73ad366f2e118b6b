import { ApprovalPolicy } from '../../agent/approvals';
import { loadRoles, WORKSPACE_ROLES_DIR, type RoleFile } from '../../algorithm/roles';
import type { ModelRouter } from '../../llm/router';
import type { AnyCriterion, CriterionResult, EffortLevel, Outcome } from '../../model';
import type { CandidateEvidence } from '../../algorithm/ports';
import { verificationCommandsRequest, type RunPorts } from '../compose-run';
import { VerifierJudge } from '../judge';
import { RunVerifier } from '../run-verifier';
import { approvalAfter, COMMAND_REASONS, decideCommands, withVerdict } from '../../verify/decide-commands';

/** One artifact's verification: outcome and evidence by criterion id, and whether every CRITICAL one passed. */
export interface ArtifactVerification {
  readonly outcomes: Record<string, Outcome>;
  readonly evidence: Record<string, string>;
  readonly results: readonly CriterionResult[];
  readonly passed: boolean;
}

const EVIDENCE_CHARS = 300;

/**
 * Verifies one artifact's criteria with the verification engine the Algorithm uses
 * (RunVerifier, over composeVerification: GREP, READ, CLI… and the verifier role for CUSTOM), the
 * level's parallel verifiers, the artifact's commands approved as a run's are.
 */
export class ArtifactVerifier {
  private readonly approvals: ApprovalPolicy;
  private verifierRole: Promise<RoleFile> | undefined;

  constructor(private readonly ports: RunPorts) {
    this.approvals = new ApprovalPolicy(ports.approver, { trusted: ports.trusted, autoApproveEdits: false, allowCommands: ports.allowCommands ?? [] }, ports.onApproval);
  }

  /** The verifier role (the workspace's roles/verifier.yaml when trusted). */
  role(): Promise<RoleFile> {
    this.verifierRole ??= (async () => {
      const override = this.ports.trusted ? await this.ports.readOverride(`${WORKSPACE_ROLES_DIR}/verifier.yaml`) : undefined;
      return loadRoles(override ? [override] : []).roles.verifier;
    })();
    return this.verifierRole;
  }

  async verify(criteria: readonly AnyCriterion[], o: { models: ModelRouter; level: EffortLevel; parallelism: number; signal: AbortSignal; candidate?: CandidateEvidence; excludePrd?: string }): Promise<ArtifactVerification> {
    const role = await this.role();
    const root = this.ports.files.root;
    const verifier = new RunVerifier(
      {
        workspaceRoot: root,
        ...this.ports.verify,
        // The loop remembers no denials: the rule leaves every command to the loop's policy, asked once for the set.
        approver: {
          approve: async (commands, signal) => {
            const decisions = decideCommands(commands, { asker: 'policy' });
            const asked = withVerdict(decisions, 'ask');
            const yes = asked.length === 0 || (await this.approvals.approve(verificationCommandsRequest(asked, root), signal));
            return { ...approvalAfter(decisions, { yes, refused: COMMAND_REASONS.setNotApproved }), approved: yes };
          },
        },
      },
      this.ports.effort,
      () => (hasModel(o.models, 'verifier', o.level) ? new VerifierJudge(o.models, role, o.level) : undefined),
    );
    const set = await verifier.verify(criteria, {
      signal: o.signal,
      level: o.level,
      parallelism: o.parallelism,
      timeoutMs: this.ports.verifyTimeoutMs ?? 300_000,
      criteriaVersion: 1,
      candidateFor: () => o.candidate,
      earlierResults: () => [],
      ...(o.excludePrd ? { prdPath: o.excludePrd } : {}),
    });
    const outcomes: Record<string, Outcome> = {};
    const evidence: Record<string, string> = {};
    for (const r of set.results) {
      outcomes[r.criterionId] = r.outcome;
      evidence[r.criterionId] = clip(r.evidence, EVIDENCE_CHARS);
    }
    return { outcomes, evidence, results: set.results, passed: set.passed };
  }
}

/** Whether the router has a model for the role at this level (routing throws when it has none). */
export function hasModel(models: Pick<ModelRouter, 'route'>, role: 'verifier' | 'specialist' | 'manager', level: EffortLevel): boolean {
  try {
    models.route(role, level);
    return true;
  } catch {
    return false;
  }
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
