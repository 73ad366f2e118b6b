import { loadCapabilities, WORKSPACE_CAPABILITIES_FILE } from '../algorithm/capabilities';
import { WaitingTime } from '../algorithm/budget-tracker';
import { AlgorithmEngine, type AlgorithmDeps } from '../algorithm/engine';
import { loadPhaseGraph, WORKSPACE_PHASE_GRAPH_FILE } from '../algorithm/phase-graph';
import type { PrdFile, RunLearning } from '../algorithm/ports';
import { loadRoles, ROLE_IDS, WORKSPACE_ROLES_DIR } from '../algorithm/roles';
import type { DataFileProblem } from '../model/data-file';
import type { ChooseLearned } from '../learning/memory';
import { runLearning } from '../algorithm/run-learning';
import { LearningService } from '../learning/service';
import type { Logger } from '../model/log';
import type { EffortTable, Run, RunEvent } from '../model';
import type { ModelRouter } from '../llm/router';
import { demoReplayRefusal, routedModels } from './demo-replay';
import { newPrdId } from '../prd/new-prd';
import { StoreRunStorage } from '../algorithm/store-run-storage';
import type { Store } from '../store/store';
import type { VerifyHost } from '../verify/types';
import { ApprovalPolicy, type ApprovalRequest, type Approver } from '../agent/approvals';
import { checkpointedPrd, storageCheckpointer } from '../agent/checkpoint';
import { SpecialistAgent } from '../agent/specialist-agent';
import type { WorkspaceTools } from '../agent/workspace';
import { DEFAULT_PRD_FOLDER } from './defaults';
import { judgeUsageEvent, VerifierJudge } from './judge';
import { approveProbeCommands, approveVerificationCommands } from './verification-approval';
import { RunVerifier } from './run-verifier';

/** A workspace file that replaces shipped data (phase graph, capabilities, roles). */
export type ReadOverride = (relative: string) => Promise<{ file: string; text: string } | undefined>;

/**
 * What a run is built from: the ports the host (command line, editor, a test) supplies.
 * Everything else — the engine, its verifier and judge, approvals, checkpoints, learning,
 * the PRD's path — is wired here and nowhere else.
 */
export interface RunPorts {
  /** The agent's file tools: on disk for the command line, through WorkspaceEdit in the editor. */
  readonly files: WorkspaceTools;
  readonly store: Store;
  readonly models: ModelRouter;
  readonly effort: EffortTable;
  readonly approver: Approver;
  /** False (Restricted Mode): no edits, no commands, no PRD written, no workspace overrides. */
  readonly trusted: boolean;
  readonly autoApproveEdits?: boolean;
  /** Commands the run may execute without asking (`*` alone: all). */
  readonly allowCommands?: readonly string[];
  /**
   * Reads a workspace override when trusted (never called otherwise). The command line
   * reads only files whose content the user trusted (`ideal-state trust`); the editor reads
   * the workspace as it is (VS Code's Workspace Trust covers it).
   */
  readonly readOverride: ReadOverride;
  /** What verification uses beyond the workspace: the editor's tasks, diagnostics, `files.exclude`, ripgrep, and where its processes start. */
  readonly verify?: Pick<VerifyHost, 'tasks' | 'diagnostics' | 'excludeGlobs' | 'ripgrepPath' | 'processes'>;
  /** Where a new run's PRD goes (workspace-relative). */
  readonly prdFolder?: string;
  /** The run's PRD file at a workspace-relative path; by default read and written with `files`. */
  readonly prdFile?: (relative: string) => PrdFile;
  /**
   * Learning (memory for OBSERVE, the reflection after the run): on by default, over the same
   * store with the manager's model; false for none.
   */
  readonly learning?: false | RunLearning | LearningOptions;
  readonly logger?: Logger;
  readonly onEvent?: (event: RunEvent) => void;
  /** Every durable commit of the run, whole (the editor's RunSessions tells its views from it). */
  readonly onCommit?: AlgorithmDeps['onCommit'];
  readonly onApproval?: (request: ApprovalRequest, approved: boolean, how: string) => void;
  readonly clock?: AlgorithmDeps['clock'];
  readonly verifyTimeoutMs?: number;
  /** Where remembered denials are kept (the user's state folder, src/app/denied-commands.ts): its environment; default process.env. */
  readonly stateEnv?: NodeJS.ProcessEnv;
}

export interface LearningOptions {
  /** The product version recorded on reflections. */
  readonly version: string;
  /** Asks the person which learned criteria to keep (the editor's quick pick); unset: all are kept. */
  readonly chooseLearned?: ChooseLearned;
}

export interface ComposedRun {
  readonly engine: AlgorithmEngine;
  readonly storage: StoreRunStorage;
  readonly files: WorkspaceTools;
  /** Problems in workspace overrides (the shipped data was used instead); each names its file and line. */
  readonly problems: readonly DataFileProblem[];
  /** How long the run has waited for a person (its approvals): shown as waiting, never counted against its budget. */
  readonly waiting: WaitingTime;
}

/** The one composition root of a run: ports in, an engine that runs it out. */
export async function composeRun(ports: RunPorts): Promise<ComposedRun> {
  const { files, store, models, trusted } = ports;
  const override: ReadOverride = async (rel) => (trusted ? ports.readOverride(rel) : undefined);
  const storage = new StoreRunStorage(store);
  const graph = loadPhaseGraph(await override(WORKSPACE_PHASE_GRAPH_FILE));
  const capabilities = loadCapabilities(await override(WORKSPACE_CAPABILITIES_FILE));
  const roleFiles = (await Promise.all(ROLE_IDS.map((id) => override(`${WORKSPACE_ROLES_DIR}/${id}.yaml`)))).filter((x) => x !== undefined);
  const roles = loadRoles(roleFiles);
  const approvals = new ApprovalPolicy(ports.approver, { trusted, autoApproveEdits: ports.autoApproveEdits ?? false, allowCommands: ports.allowCommands ?? [] }, ports.onApproval, new WaitingTime(ports.clock));
  // The run's verification is composed as every verification is: the run's policy is who can be
  // asked about its commands, and the run is where its report goes.
  const verifier = new RunVerifier(
    {
      workspaceRoot: files.root,
      ...ports.verify,
      // The criteria's commands are approved like the agent's, once for the set; a person's denial is remembered.
      approver: {
        approve: (commands, signal) =>
          approveVerificationCommands(commands, signal, {
            approvals,
            request: (ask) => verificationCommandsRequest(ask, files.root),
            workspace: files.root,
            env: ports.stateEnv ?? process.env,
            now: () => ports.clock?.now() ?? new Date(),
          }),
      },
    },
    ports.effort,
    (options) => new VerifierJudge(models, roles.roles.verifier, options.level, (usage) => options.onEvent?.(judgeUsageEvent(usage))),
  );
  // The probe: the same checks, but no question to anyone. A command runs only when
  // the run's approvals allow it without asking and no person denied it; any other is not probed.
  const prober = new RunVerifier(
    {
      workspaceRoot: files.root,
      ...ports.verify,
      approver: { approve: (commands) => approveProbeCommands(commands, { approvals, workspace: files.root, env: ports.stateEnv ?? process.env }) },
    },
    ports.effort,
  );
  const prdFolder = (ports.prdFolder ?? DEFAULT_PRD_FOLDER).replace(/\/+$/, '');
  const prdFile = ports.prdFile ?? ((rel: string): PrdFile => ({ path: rel, read: () => files.readFile(rel), write: (text) => files.writeFile(rel, text) }));
  const learning = ports.learning === false ? undefined : ports.learning && 'memoryFor' in ports.learning ? ports.learning : composeLearning(ports, ports.learning ?? { version: 'unknown' });
  const engine = new AlgorithmEngine({
    storage,
    models,
    worker: new SpecialistAgent({
      models,
      role: roles.roles.specialist,
      files,
      approvals,
      checkpointFor: (runId) => storageCheckpointer(storage, runId),
      tools: (level) => (trusted ? capabilities.capabilities.levels[level].tools : []),
    }),
    verifier,
    prober,
    effort: ports.effort,
    graph: graph.graph,
    roles: roles.roles,
    capabilities: capabilities.capabilities,
    // In Restricted Mode nothing is written to the workspace, the PRD included.
    ...(trusted
      ? {
          prdFor: (run: Run) =>
            // Checkpointed, so undo puts the PRD back too (unless it was edited after the run).
            checkpointedPrd(prdFile(run.prdPath ?? newRunPrdPath(prdFolder, run)), storageCheckpointer(storage, run.id)),
        }
      : {}),
    ...(learning ? { learning } : {}),
    ...(ports.clock ? { clock: ports.clock } : {}),
    // A person's time to answer an approval is not the run's: the budget leaves it out.
    waits: approvals.waiting,
    ...(ports.logger ? { logger: ports.logger } : {}),
    ...(ports.onEvent ? { onEvent: ports.onEvent } : {}),
    ...(ports.onCommit ? { onCommit: ports.onCommit } : {}),
    ...(ports.verifyTimeoutMs ? { verifyTimeoutMs: ports.verifyTimeoutMs } : {}),
    refuseStart: () => demoReplayRefusal(routedModels(models), (rel) => files.readFile(rel)),
  });
  return { engine, storage, files, waiting: approvals.waiting, problems: [...graph.problems, ...capabilities.problems, ...roles.problems] };
}

/** The approval a run asks before its criteria's commands run: every command, and where. */
export function verificationCommandsRequest(commands: readonly string[], cwd: string): ApprovalRequest {
  return { kind: 'command', title: `Run ${commands.length} verification command${commands.length === 1 ? '' : 's'}`, detail: commands.join('\n'), command: commands.join('\n'), cwd };
}

/** A new run's PRD: dated, named after the request's first line, unique by the run's id. */
export function newRunPrdPath(folder: string, run: Pick<Run, 'id' | 'request' | 'createdAt'>): string {
  return `${folder}/${newPrdId(run.request.split(/\r?\n/)[0]!, new Date(run.createdAt))}-${run.id.slice(-6)}.md`;
}

function composeLearning(ports: RunPorts, options: LearningOptions): RunLearning {
  return runLearning(new LearningService(ports.store, { version: options.version }), {
    managerModel: (level) => ports.models.route('manager', level),
    ...(ports.trusted && options.chooseLearned ? { chooseLearned: options.chooseLearned } : {}),
  });
}
