import * as vscode from 'vscode';
import { enginePrdWrites } from '../prd/engine-writes';
import type { ApprovalRequest, Approver } from '../../agent/approvals';
import type { WaitingTime } from '../../core/algorithm/budget-tracker';
import type { AlgorithmEngine } from '../../core/algorithm/engine';
import type { CriteriaVerifyOptions, PrdFile } from '../../core/algorithm/ports';
import type { DataFileProblem } from '../../core/data-file';
import type { Logger } from '../../core/log';
import type { EffortLevel, EffortTable, Run, RunEvent } from '../../core/model';
import type { ModelRouter } from '../../llm/router';
import type { UsageRecord } from '../../llm/usage';
import type { StoreRunStorage } from '../../store/run-storage';
import type { Store } from '../../store/store';
import type { VerifyHost } from '../../verify/types';
import { engine } from '../engine';
import { EditorDiagnosticsSource } from '../verify/diagnostics-source';
import { filesExcludeGlobs } from '../verify/files-exclude';
import type { EditorTaskRunner } from '../verify/task-runner';
import { chooseLearnedInQuickPick } from '../learning/learned-offers-pick';
import { EditorWorkspace } from './editor-workspace';

export interface EditorAlgorithmOptions {
  readonly folder: vscode.WorkspaceFolder;
  readonly store: Store;
  readonly models: ModelRouter;
  readonly effort: EffortTable;
  /** The run's level (the judge of CUSTOM criteria is routed for it). */
  readonly level: EffortLevel;
  readonly approver: Approver;
  readonly autoApproveEdits: boolean;
  /** False (Restricted Mode): no edits, no commands, no PRD written, no workspace overrides. */
  readonly trusted: boolean;
  readonly prdFolder: string;
  readonly tasks: EditorTaskRunner;
  readonly logger: Logger;
  readonly onEvent: (event: RunEvent) => void;
  readonly onApproval: (request: ApprovalRequest, approved: boolean, how: string) => void;
}

export interface EditorAlgorithm {
  readonly engine: AlgorithmEngine;
  readonly workspace: EditorWorkspace;
  readonly storage: StoreRunStorage;
  readonly problems: readonly DataFileProblem[];
  /** How long the run has waited for a person (its approvals): shown as waiting, not counted against its budget. */
  readonly waiting: WaitingTime;
}

/**
 * The Algorithm wired for the editor, the same way `nodeAlgorithm` wires it for the
 * command line: the workspace through WorkspaceEdit, the editor's tasks and diagnostics
 * for verification, approvals as pending requests (notification, ISC table, palette), the run's model router and the store.
 */
export async function editorAlgorithm(o: EditorAlgorithmOptions): Promise<EditorAlgorithm> {
  const e = engine();
  const ripgrep = engine().bundledRipgrep(vscode.env.appRoot);
  const workspace = new EditorWorkspace(o.folder.uri, ripgrep);
  const storage = new e.StoreRunStorage(o.store);
  const override = async (rel: string) => {
    if (!o.trusted) return undefined;
    const text = await workspace.readFile(rel).catch(() => undefined);
    return text === undefined ? undefined : { file: rel, text };
  };
  const graph = e.loadPhaseGraph(await override(e.WORKSPACE_PHASE_GRAPH_FILE));
  const capabilities = e.loadCapabilities(await override(e.WORKSPACE_CAPABILITIES_FILE));
  const roleFiles = (await Promise.all(e.ROLE_IDS.map((id) => override(`${e.WORKSPACE_ROLES_DIR}/${id}.yaml`)))).filter((x): x is { file: string; text: string } => x !== undefined);
  const roles = e.loadRoles(roleFiles);
  const approvals = new e.ApprovalPolicy(o.approver, { trusted: o.trusted, autoApproveEdits: o.autoApproveEdits }, o.onApproval);
  let prdPath: string | undefined;
  // Where the judge's spending goes while a verification is under way (the VERIFY node's events).
  let judgeEvents: CriteriaVerifyOptions['onEvent'];
  const judgeUsage = (u: UsageRecord) => {
    const ev = e.usageToRunEvent(u, { runId: '', seq: 0, at: '', role: 'verifier', purpose: 'VERIFY: verdict' });
    judgeEvents?.({ kind: 'model', message: ev.message, role: 'verifier', model: ev.model, inputTokens: ev.inputTokens, outputTokens: ev.outputTokens, costUsd: ev.costUsd, durationMs: ev.durationMs });
  };
  const host: VerifyHost = {
    workspaceRoot: workspace.root,
    tasks: o.tasks,
    diagnostics: new EditorDiagnosticsSource(workspace.root),
    excludeGlobs: filesExcludeGlobs(o.folder.uri),
    ...(ripgrep ? { ripgrepPath: ripgrep } : {}),
    // The criteria's commands are approved like the agent's, once for the set.
    approver: {
      approve: async (commands, signal) => ({ approved: await approvals.approve({ kind: 'command', title: `Run ${commands.length} verification command${commands.length === 1 ? '' : 's'}`, detail: commands.join('\n') }, signal) }),
    },
    get judge() {
      return new e.ModelJudge(o.models, roles.roles.verifier, o.level, judgeUsage);
    },
  };
  const verificationEngine = new e.VerificationEngineVerifier(host, () => (prdPath ? [prdPath] : []));
  const algorithm = new e.AlgorithmEngine({
    storage,
    models: o.models,
    worker: new e.SpecialistAgent({
      models: o.models,
      role: roles.roles.specialist,
      files: workspace,
      approvals,
      checkpointFor: (runId) => e.storageCheckpointer(storage, runId),
      tools: (l) => (o.trusted ? capabilities.capabilities.levels[l].tools : []),
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
    // In Restricted Mode nothing is written to the workspace, the PRD included.
    ...(o.trusted
      ? {
          prdFor: (run: Run) => {
            prdPath = run.prdPath ?? `${o.prdFolder.replace(/\/+$/, '')}/${e.newPrdId(run.request.split(/\r?\n/)[0]!, new Date(run.createdAt))}-${run.id.slice(-6)}.md`;
            // Checkpointed, so "Undo Run Changes" puts the PRD back too (unless it was edited after the run).
            return e.checkpointedPrd(editorPrdFile(workspace, prdPath), e.storageCheckpointer(storage, run.id));
          },
        }
      : {}),
    // Memory of similar past runs into OBSERVE, and the reflection after the run (issue 9).
    // The person keeps or drops the learned criteria at OBSERVE (a quick pick; not in Restricted Mode, where nothing runs).
    learning: e.runLearning(new e.LearningService(o.store, { version: extensionVersion() }), {
      managerModel: (l) => o.models.route('manager', l),
      ...(o.trusted ? { chooseLearned: chooseLearnedInQuickPick(`${o.level} run`) } : {}),
    }),
    logger: o.logger,
    onEvent: o.onEvent,
    // A person's time to answer an approval is not the run's: the budget leaves it out.
    waits: approvals.waiting,
  });
  return { engine: algorithm, workspace, storage, waiting: approvals.waiting, problems: [...graph.problems, ...capabilities.problems, ...roles.problems] };
}

function extensionVersion(): string {
  return (vscode.extensions.getExtension('ideal-state.ideal-state')?.packageJSON as { version?: string } | undefined)?.version ?? 'unknown';
}

/** The run's PRD, read from its open document if any and written through WorkspaceEdit like the agent's files. */
function editorPrdFile(workspace: EditorWorkspace, rel: string): PrdFile {
  return {
    path: rel,
    read: () => workspace.readFile(rel),
    write: (text) => {
      // Its save is the run's, not the user's edit (see EnginePrdWrites).
      enginePrdWrites.wrote(rel, text);
      return workspace.writeFile(rel, text);
    },
  };
}
