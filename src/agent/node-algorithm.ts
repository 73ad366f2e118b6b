import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { loadCapabilities, WORKSPACE_CAPABILITIES_FILE } from '../core/algorithm/capabilities';
import { AlgorithmEngine, type AlgorithmDeps } from '../core/algorithm/engine';
import { loadPhaseGraph, WORKSPACE_PHASE_GRAPH_FILE } from '../core/algorithm/phase-graph';
import type { CriteriaVerifyOptions, PrdFile, RunLearning } from '../core/algorithm/ports';
import { LearningService } from '../core/learning/service';
import { runLearning } from '../core/learning/run-learning';
import { usageToRunEvent, type UsageRecord } from '../llm/usage';
import { loadRoles, ROLE_IDS, WORKSPACE_ROLES_DIR } from '../core/algorithm/roles';
import type { DataFileProblem } from '../core/data-file';
import type { Logger } from '../core/log';
import type { EffortTable, Run, RunEvent } from '../core/model';
import type { ModelRouter } from '../llm/router';
import { newPrdId } from '../prd/new-prd';
import { StoreRunStorage } from '../store/run-storage';
import type { Store } from '../store/store';
import type { VerifyHost } from '../verify/types';
import { WaitingTime } from '../core/algorithm/budget-tracker';
import { ApprovalPolicy, type ApprovalRequest, type Approver } from './approvals';
import { checkpointedPrd, storageCheckpointer } from './checkpoint';
import { VerificationEngineVerifier } from './engine-verifier';
import { ModelJudge } from './model-judge';
import { NodeWorkspace } from './node-workspace';
import { SpecialistAgent } from './specialist-agent';
import type { WorkspaceTools } from './workspace';

export interface NodeAlgorithmOptions {
  readonly workspace: string;
  readonly store: Store;
  readonly models: ModelRouter;
  readonly effort: EffortTable;
  readonly approver: Approver;
  readonly autoApproveEdits?: boolean;
  readonly allowCommands?: readonly string[];
  /** False: no edits, no commands, no workspace overrides (Restricted Mode). */
  readonly trusted?: boolean;
  /**
   * Reads a workspace override (phase graph, capabilities, roles) when trusted; by default
   * from disk. The command line passes one that reads only files whose content the user
   * trusted (`ideal-state trust`), so a planted file changes nothing.
   */
  readonly readOverride?: (relative: string) => Promise<{ file: string; text: string } | undefined>;
  readonly logger?: Logger;
  readonly onEvent?: (event: RunEvent) => void;
  readonly onApproval?: (request: ApprovalRequest, approved: boolean, how: string) => void;
  readonly clock?: AlgorithmDeps['clock'];
  readonly verifyTimeoutMs?: number;
  readonly ripgrepPath?: string;
  /**
   * The agent's file tools; by default the Node implementation on disk. The editor passes
   * one whose writes go through WorkspaceEdit (undoable, visible in open editors).
   */
  readonly files?: WorkspaceTools;
  /**
   * Memory for OBSERVE and the reflection after each run; by default the LearningService
   * over the same store, reflecting with the manager's model. False: no learning.
   */
  readonly learning?: RunLearning | false;
  /** The product version recorded on reflections. */
  readonly version?: string;
}

/** Workspace files that replace shipped data (phase graph, capabilities, roles), read when trusted. */
async function readFromDisk(workspace: string, rel: string): Promise<{ file: string; text: string } | undefined> {
  try {
    return { file: rel, text: await fs.readFile(path.join(workspace, rel), 'utf8') };
  } catch {
    return undefined;
  }
}

/**
 * The Algorithm wired for plain Node (the command line, tests, benches): the workspace on
 * disk, the store, the verification engine, the specialist agent and approvals.
 */
export async function nodeAlgorithm(o: NodeAlgorithmOptions): Promise<{ engine: AlgorithmEngine; problems: readonly DataFileProblem[]; workspace: WorkspaceTools; storage: StoreRunStorage }> {
  const trusted = o.trusted ?? true;
  const readOverride = async (rel: string) => (!trusted ? undefined : o.readOverride ? o.readOverride(rel) : readFromDisk(o.workspace, rel));
  const workspace = o.files ?? new NodeWorkspace(o.workspace, o.ripgrepPath);
  const storage = new StoreRunStorage(o.store);
  const graph = loadPhaseGraph(await readOverride(WORKSPACE_PHASE_GRAPH_FILE));
  const capabilities = loadCapabilities(await readOverride(WORKSPACE_CAPABILITIES_FILE));
  const roleFiles = (await Promise.all(ROLE_IDS.map((id) => readOverride(`${WORKSPACE_ROLES_DIR}/${id}.yaml`)))).filter((x): x is { file: string; text: string } => x !== undefined);
  const roles = loadRoles(roleFiles);
  const approvals = new ApprovalPolicy(o.approver, { trusted, autoApproveEdits: o.autoApproveEdits, allowCommands: o.allowCommands }, o.onApproval, new WaitingTime(o.clock));
  let level: Run['effort'] = 'STANDARD';
  let prdPath: string | undefined;
  // Where the judge's spending goes while a verification is under way (the VERIFY node's events).
  let judgeEvents: CriteriaVerifyOptions['onEvent'];
  const judgeUsage = (u: UsageRecord) => {
    const e = usageToRunEvent(u, { runId: '', seq: 0, at: '', role: 'verifier', purpose: 'VERIFY: verdict' });
    judgeEvents?.({ kind: 'model', message: e.message, role: 'verifier', model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, costUsd: e.costUsd, durationMs: e.durationMs });
  };
  const host: VerifyHost = {
    workspaceRoot: workspace.root,
    ...(o.ripgrepPath ? { ripgrepPath: o.ripgrepPath } : {}),
    // Commands of criteria are approved like the agent's, once for the set.
    approver: {
      approve: async (commands, signal) => ({ approved: await approvals.approve({ kind: 'command', title: `Run ${commands.length} verification command(s)`, detail: commands.join('\n'), command: commands.join('\n'), cwd: workspace.root }, signal) }),
    },
    get judge() {
      return new ModelJudge(o.models, roles.roles.verifier, level, judgeUsage);
    },
  };
  const verificationEngine = new VerificationEngineVerifier(host, () => (prdPath ? [prdPath] : []));
  const engine = new AlgorithmEngine({
    storage,
    models: o.models,
    worker: new SpecialistAgent({
      models: o.models,
      role: roles.roles.specialist,
      files: workspace,
      approvals,
      checkpointFor: (runId) => storageCheckpointer(storage, runId),
      tools: (l) => (trusted ? capabilities.capabilities.levels[l].tools : []),
    }),
    verifier: {
      verify: async (criteria, options) => {
        judgeEvents = options.onEvent;
        try {
          return await verificationEngine.verify(criteria, options);
        } finally {
          judgeEvents = undefined;
        }
      },
    },
    effort: o.effort,
    graph: graph.graph,
    roles: roles.roles,
    capabilities: capabilities.capabilities,
    prdFor: (run) => {
      level = run.effort;
      prdPath = run.prdPath ?? `.ideal-state/prds/${newPrdId(run.request.split(/\r?\n/)[0]!, new Date(run.createdAt))}-${run.id.slice(-6)}.md`;
      // Checkpointed, so `undo` puts the PRD back too (unless it was edited after the run).
      return checkpointedPrd(nodePrdFile(workspace, prdPath), storageCheckpointer(storage, run.id));
    },
    ...(o.clock ? { clock: o.clock } : {}),
    // A person's time to answer an approval is not the run's: the budget leaves it out.
    waits: approvals.waiting,
    ...(o.logger ? { logger: o.logger } : {}),
    ...(o.onEvent ? { onEvent: o.onEvent } : {}),
    ...(o.verifyTimeoutMs ? { verifyTimeoutMs: o.verifyTimeoutMs } : {}),
    ...(o.learning === false ? {} : { learning: o.learning ?? runLearning(new LearningService(o.store, { version: o.version ?? 'unknown' }), { managerModel: (l) => o.models.route('manager', l) }) }),
  });
  return { engine, problems: [...graph.problems, ...capabilities.problems, ...roles.problems], workspace, storage };
}

export function nodePrdFile(workspace: WorkspaceTools, rel: string): PrdFile {
  return { path: rel, read: () => workspace.readFile(rel), write: (text) => workspace.writeFile(rel, text) };
}
