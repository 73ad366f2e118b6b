import * as vscode from 'vscode';
import { enginePrdWrites } from '../prd/engine-writes';
import type { ApprovalRequest, Approver } from '../../agent/approvals';
import type { ComposedRun, RunPorts } from '../../app/compose-run';
import type { PrdFile } from '../../algorithm/ports';
import type { Logger } from '../../model/log';
import type { EffortLevel, EffortTable, RunEvent } from '../../model';
import type { ModelRouter } from '../../llm/router';
import type { Store } from '../../store/store';
import { engine } from '../engine';
import { EditorDiagnosticsSource } from '../verify/diagnostics-source';
import { filesExcludeGlobs } from '../verify/files-exclude';
import type { EditorTaskRunner } from '../verify/task-runner';
import { chooseLearnedInQuickPick } from '../learning/learned-offers-pick';
import { EditorWorkspace } from './editor-workspace';
import type { ProcessRunner } from '../../verify/process-runner';

export interface EditorAlgorithmOptions {
  readonly folder: vscode.WorkspaceFolder;
  readonly store: Store;
  readonly models: ModelRouter;
  readonly effort: EffortTable;
  /** The run's level (names the learned-criteria pick). */
  readonly level: EffortLevel;
  readonly approver: Approver;
  readonly autoApproveEdits: boolean;
  /** `idealState.run.allowedCommands`. */
  readonly allowCommands: readonly string[];
  /** False (Restricted Mode): no edits, no commands, no PRD written, no workspace overrides. */
  readonly trusted: boolean;
  readonly prdFolder: string;
  readonly tasks: EditorTaskRunner;
  /** Where commands and ripgrep start (the window's process host, src/vscode/processes-host.ts). */
  readonly processes: ProcessRunner;
  readonly logger: Logger;
  readonly onEvent: (event: RunEvent) => void;
  readonly onCommit: NonNullable<RunPorts['onCommit']>;
  readonly onApproval: (request: ApprovalRequest, approved: boolean, how: string) => void;
}

/**
 * The editor's ports for the one composition of a run (src/app/compose-run.ts): the
 * workspace through WorkspaceEdit (undoable, visible in open editors), the editor's tasks,
 * diagnostics and `files.exclude` for verification, approvals as pending requests
 * (notification, ISC table, palette), the learned-criteria quick pick.
 */
export async function editorAlgorithm(o: EditorAlgorithmOptions): Promise<ComposedRun & { readonly workspace: EditorWorkspace }> {
  const { ports, workspace } = editorRunPorts(o);
  const composed = await engine().composeRun(ports);
  return { ...composed, workspace };
}

/** The editor's ports of a run, for composeRun and for a loop's sub-runs (src/vscode/loop). */
export function editorRunPorts(o: EditorAlgorithmOptions): { ports: RunPorts; workspace: EditorWorkspace } {
  const e = engine();
  const ripgrep = e.bundledRipgrep(vscode.env.appRoot);
  const workspace = new EditorWorkspace(o.folder.uri, ripgrep, o.processes);
  const ports: RunPorts = {
    files: workspace,
    store: o.store,
    models: o.models,
    effort: o.effort,
    approver: o.approver,
    trusted: o.trusted,
    autoApproveEdits: o.autoApproveEdits,
    allowCommands: o.allowCommands,
    readOverride: async (rel) => {
      const text = await workspace.readFile(rel).catch(() => undefined);
      return text === undefined ? undefined : { file: rel, text };
    },
    verify: {
      tasks: o.tasks,
      diagnostics: new EditorDiagnosticsSource(workspace.root),
      excludeGlobs: filesExcludeGlobs(o.folder.uri),
      ...(ripgrep ? { ripgrepPath: ripgrep } : {}),
      processes: o.processes,
    },
    prdFolder: o.prdFolder,
    prdFile: (rel) => editorPrdFile(workspace, rel),
    // The person keeps or drops the learned criteria at OBSERVE (a quick pick).
    learning: { version: extensionVersion(), chooseLearned: chooseLearnedInQuickPick(`${o.level} run`) },
    logger: o.logger,
    onEvent: o.onEvent,
    onCommit: o.onCommit,
    onApproval: o.onApproval,
  };
  return { ports, workspace };
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
