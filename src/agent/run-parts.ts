import type { CriteriaVerifier, CriteriaVerifyOptions, RunStorage } from '../core/algorithm/ports';
import type { RoleFile } from '../core/algorithm/roles';
import type { ModelRouter } from '../llm/router';
import { usageToRunEvent, type UsageRecord } from '../llm/usage';
import type { VerifyHost } from '../verify/types';
import type { ApprovalPolicy } from './approvals';
import { SpecialistAgent, type SpecialistAgentDeps } from './specialist-agent';
import type { WorkspaceTools } from './workspace';

/**
 * The parts of a run that the editor and the command line assemble the same way: the
 * specialist with its checkpoints, the verifier that passes the judge's spending to the
 * VERIFY node, and the approval of the criteria's commands.
 */

/** Where the model judge's spending goes while a verification is under way: the VERIFY node's events. */
export class JudgeSpending {
  private events: CriteriaVerifyOptions['onEvent'];

  /** For the judge: each model call it makes becomes a run event of the verification under way. */
  readonly usage = (u: UsageRecord): void => {
    const e = usageToRunEvent(u, { runId: '', seq: 0, at: '', role: 'verifier', purpose: 'VERIFY: verdict' });
    this.events?.({ kind: 'model', message: e.message, role: 'verifier', model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, costUsd: e.costUsd, durationMs: e.durationMs });
  };

  /** The verifier, with the judge's events sent to each verification's own listener. */
  around(verifier: CriteriaVerifier): CriteriaVerifier {
    return {
      verify: async (criteria, options) => {
        this.events = options.onEvent;
        try {
          return await verifier.verify(criteria, options);
        } finally {
          this.events = undefined;
        }
      },
    };
  }
}

/** The criteria's commands are approved like the agent's: once for the set, naming each command and the folder. */
export function verificationCommandApprover(approvals: ApprovalPolicy, root: string): NonNullable<VerifyHost['approver']> {
  return {
    approve: async (commands, signal) => ({
      approved: await approvals.approve({ kind: 'command', title: `Run ${commands.length} verification command${commands.length === 1 ? '' : 's'}`, detail: commands.join('\n'), command: commands.join('\n'), cwd: root }, signal),
    }),
  };
}

/** A specialist whose file changes are checkpointed in the run's storage before the first one, for Undo Run Changes. */
export function checkpointedSpecialist(o: {
  models: Pick<ModelRouter, 'chat'>;
  role: RoleFile;
  files: WorkspaceTools;
  approvals: ApprovalPolicy;
  storage: Pick<RunStorage, 'saveCheckpoint'>;
  tools: SpecialistAgentDeps['tools'];
}): SpecialistAgent {
  return new SpecialistAgent({
    models: o.models,
    role: o.role,
    files: o.files,
    approvals: o.approvals,
    checkpointFor: (runId) => ({ before: (p, content) => o.storage.saveCheckpoint(runId, { path: p, ...(content !== undefined ? { before: content } : {}), at: new Date().toISOString() }) }),
    tools: o.tools,
  });
}
