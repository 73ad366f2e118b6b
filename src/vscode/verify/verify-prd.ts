import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { AnyCriterion, CriterionResult, EffortLevel } from '../../model';
import type { Settings } from '../../model/settings';
import type { PreparedPrd } from '../../app/verify-prd';
import type { PrdSource } from '../../app/compose-verification';
import type { PrdDocument } from '../../prd';
import type { ProcessRunner } from '../../verify/process-runner';
import type { Coverage, VerifyHost, VerifySetResult } from '../../verify/types';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { SessionsHost } from '../runs/sessions-host';
import type { StoreHost } from '../store-host';
import { EditorCommandApprover } from './command-approver';
import { EditorDiagnosticsSource } from './diagnostics-source';
import { minimalEdit } from './prd-text-edit';
import { enginePrdWrites } from '../prd/engine-writes';
import { filesExcludeGlobs } from './files-exclude';
import type { EditorTaskRunner } from './task-runner';
import type { JudgeSource } from './judge-source';

/** A PRD that cannot be verified as it stands (not trusted, outside the folder, parse errors); the message says what to do. */
export class PrdVerifyError extends Error {
  override readonly name = 'PrdVerifyError';
  readonly code = 'prd-verify';
}

export interface PrdVerifyOptions {
  readonly signal: AbortSignal;
  /** Criterion ids to verify; all when left out. */
  readonly only?: readonly string[];
  readonly onResult?: (result: CriterionResult, criterion: AnyCriterion, coverage: Coverage) => void;
  /** Commands the person confirmed in the ideal-state_verify tool's confirmation (not asked again). */
  readonly confirmedCommands?: readonly string[];
}

export interface PrdVerification {
  readonly uri: vscode.Uri;
  /** Workspace-relative, forward slashes. */
  readonly path: string;
  readonly criteria: readonly AnyCriterion[];
  readonly set: VerifySetResult;
  /** The same set under the file's own ids (an ISA's C1, ISC-2.1; a PRD's are the same), as written back and as the tools answer. */
  readonly shown: VerifySetResult;
  /** The file as it was prepared for verification: its format, each criterion's priority and line by its own id. */
  readonly prepared: PreparedPrd;
  /** The PRD as it was verified (lines of each criterion). */
  readonly document: PrdDocument;
  /** False when the outcomes could not be written into the PRD (the message was shown and logged). */
  readonly written: boolean;
}

/**
 * The one path from a PRD to verified criteria, shared by the command and the Testing
 * view: read the PRD from its (possibly unsaved) document, verify with this window's
 * adapters, write the outcomes back as one undoable edit, and store the report.
 */
export class PrdVerifier {
  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly settings: Settings,
    private readonly definitions: DefinitionsHost,
    private readonly stores: StoreHost,
    private readonly tasks: EditorTaskRunner,
    private readonly judges: JudgeSource,
    private readonly sessions: SessionsHost,
    private readonly processes: ProcessRunner,
    private readonly log: Logger,
  ) {}

  async verify(uri: vscode.Uri, options: PrdVerifyOptions): Promise<PrdVerification> {
    if (!vscode.workspace.isTrusted) {
      throw new PrdVerifyError('Verify Criteria runs commands and tasks from the PRD, so it is off in Restricted Mode. Trust this workspace to verify its criteria.');
    }
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder || folder.uri.scheme !== 'file') throw new PrdVerifyError(`${uri.fsPath} is not inside a workspace folder on disk; open its folder to verify it.`);
    const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    const table = (await this.definitions.get()).effort.table;
    const started = Date.now();
    let verification;
    try {
      // Composed as every surface composes a verification: this window's adapters are its ports.
      verification = await engine().composeVerification({
        source: { kind: 'prd', from: this.openDocument(uri, relative), ...(options.only ? { only: { ids: options.only, unknown: 'skip' as const } } : {}) },
        effortTable: table,
        // Who is asked about its commands depends on the PRD as read: what its run already approved, its level's judge.
        host: async ({ prepared }) => {
          const store = await this.stores.get();
          const runId = prepared.document.meta.runId ?? store.prdIndex.where('path = ?', [relative])[0]?.runId;
          return this.hostFor(folder, relative, prepared.level, runId, options.confirmedCommands);
        },
        prdPath: relative,
        signal: options.signal,
        ...(options.onResult ? { progress: { onResult: options.onResult } } : {}),
        // Written back under the file's own ids and in its format (a PRD's checkboxes and LOG, an ISA's checkboxes, progress and Verification lines).
        writeBack: {
          write: ({ prd, set, shown }) => {
            this.log.info(`${relative}: ${set.summary} (${prd!.prepared.level}, ${Date.now() - started} ms)`);
            return this.writeBack(uri, relative, (current) => prd!.prepared.writeInto(current, shown.results, { date: new Date().toISOString().slice(0, 10), by: 'VS Code' })).then(
              () => true,
              (error: unknown) => {
                this.log.error(`writing outcomes into ${relative} failed: ${String(error)}`);
                void vscode.window.showErrorMessage(`Ideal State: the outcomes could not be written into ${relative}: ${error instanceof Error ? error.message : String(error)}. The PRD was left as it was.`);
                return false;
              },
            );
          },
        },
        // The run session's store: the report joins the PRD's run, as a run's own verifications do.
        report: async ({ prd, set }) => {
          try {
            const stored = await this.sessions.get().storePrdVerification(prd!.prepared, { prdPath: relative, text: prd!.text, set, effortTable: table, workspaceFolder: folder.name });
            if (!stored.stored) this.log.info(`verification report not stored: ${stored.reason}`);
            else if (stored.unmatched.length > 0) this.log.info(`${relative}: ${stored.unmatched.join(', ')} differ from ${stored.runId}'s stored criteria; their outcomes are in the report only until the PRD is saved`);
          } catch (error) {
            this.log.error(`storing the verification report of ${relative} failed: ${String(error)}`);
          }
        },
      });
    } catch (error) {
      if (engine().isVerificationRefused(error)) throw new PrdVerifyError(refusal(relative, error));
      throw error;
    }
    const { set, shown, written } = verification;
    const prd = verification.prd!.prepared;
    return { uri, path: relative, criteria: prd.criteria, set, shown, prepared: prd, document: prd.document, written };
  }

  /** The PRD as its open document has it, unsaved changes included; what is said of it goes to the log. */
  private openDocument(uri: vscode.Uri, relative: string): PrdSource {
    return {
      name: relative,
      read: async () => ({ ok: true, text: (await vscode.workspace.openTextDocument(uri)).getText() }),
      warn: (w) => this.log.warn(`${relative}: ${w}`),
    };
  }

  /**
   * This window's adapters for verifying in `folder` (tasks, diagnostics, approvals with the
   * allow-list, the model judge, ripgrep) — also used by the ISC table to re-verify a run's
   * stored criteria. `prdPath` names the file approvals are remembered for.
   */
  async hostFor(folder: vscode.WorkspaceFolder, prdPath: string, level: EffortLevel, runId?: string, confirmed?: readonly string[]): Promise<VerifyHost> {
    // What the PRD's run was approved to execute is not asked again: the person already said yes to it for this PRD.
    const approvedCommands = runId ? (new (engine().StoreRunStorage)(await this.stores.get()).load(runId)?.memo.approvedCommands ?? []) : [];
    return {
      workspaceRoot: folder.uri.fsPath,
      tasks: this.tasks,
      diagnostics: new EditorDiagnosticsSource(folder.uri.fsPath),
      approver: new EditorCommandApprover(this.context.workspaceState, this.settings, this.log, {
        prdPath,
        workspace: folder.uri.fsPath,
        ...(runId ? { run: { id: runId, approvedCommands } } : {}),
        ...(confirmed ? { confirmed } : {}),
        // What a person denied, kept in the user's state folder where an agent cannot erase it.
        denied: async () => {
          const root = folder.uri.fsPath;
          const where = await engine().deniedCommandsFile(root);
          return new Map([...(await engine().deniedCommands(root)).values()].map((d) => [d.command, { always: d.always, reason: engine().denialReason(d, where) }]));
        },
        rememberAnswer: (commands, approved) => (approved ? engine().forgetDenials(folder.uri.fsPath, commands) : engine().recordDenials(folder.uri.fsPath, commands, { always: false, now: new Date() })),
      }),
      excludeGlobs: filesExcludeGlobs(folder.uri),
      // Commands and ripgrep start from the window's process host, not the extension host.
      processes: this.processes,
      ...optional('judge', await this.judges.judge(level, folder).catch((e: unknown) => void this.log.warn(`no model judge: ${String(e)}`))),
      // VS Code's own ripgrep (the engine falls back to `rg` on PATH, then its JS search).
      ...optional('ripgrepPath', engine().bundledRipgrep(vscode.env.appRoot)),
    };
  }

  /** The outcomes, as one undoable edit of the document as it is now (the user may have typed meanwhile). */
  private async writeBack(uri: vscode.Uri, relative: string, write: (current: string) => string): Promise<void> {
    const document = await vscode.workspace.openTextDocument(uri);
    const wasDirty = document.isDirty;
    const after = write(document.getText());
    const edit = minimalEdit(document, after);
    if (!edit) return;
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the editor refused the edit');
    // An editor with unsaved changes stays unsaved: the user decides when to save their own edits.
    if (!wasDirty) {
      // Outcomes are not a criteria edit: this save is Verify Criteria's own, not one the store syncs as a new version.
      enginePrdWrites.wrote(relative, after);
      await document.save();
    }
    this.log.info(`outcomes written into ${relative}${wasDirty ? ' (unsaved: the editor had changes)' : ''}`);
  }
}

/** What the person reads when the PRD cannot be verified as it stands: its first error at its line, and how many more. */
function refusal(relative: string, error: { message: string; problems?: readonly { line: number; message: string }[] }): string {
  const first = error.problems?.[0];
  if (!first) return `${error.message}.`;
  const more = error.problems!.length - 1;
  return `${relative}:${first.line + 1}: ${first.message}${more > 0 ? ` (and ${more} more error${more > 1 ? 's' : ''})` : ''}. Fix the PRD's errors (see the Problems panel) and verify again.`;
}

function optional<K extends string, V>(key: K, value: V | undefined | void): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
