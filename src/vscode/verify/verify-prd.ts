import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/log';
import type { AnyCriterion, CriterionResult, EffortLevel } from '../../core/model';
import type { Settings } from '../../core/settings';
import type { PrdDocument } from '../../prd';
import type { Coverage, VerifyHost, VerifySetResult } from '../../verify/types';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { StoreHost } from '../store-host';
import { EditorCommandApprover } from './command-approver';
import { EditorDiagnosticsSource } from './diagnostics-source';
import { minimalEdit } from './prd-text-edit';
import { filesExcludeGlobs } from './files-exclude';
import type { EditorTaskRunner } from './task-runner';
import type { JudgeSource } from './model-judge';

/** Per criterion, unless its method names its own: long enough for a project's test task. */
const CRITERION_TIMEOUT_MS = 5 * 60_000;

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
}

export interface PrdVerification {
  readonly uri: vscode.Uri;
  /** Workspace-relative, forward slashes. */
  readonly path: string;
  readonly criteria: readonly AnyCriterion[];
  readonly set: VerifySetResult;
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
    private readonly log: Logger,
  ) {}

  async verify(uri: vscode.Uri, options: PrdVerifyOptions): Promise<PrdVerification> {
    if (!vscode.workspace.isTrusted) {
      throw new PrdVerifyError('Verify Criteria runs commands and tasks from the PRD, so it is off in Restricted Mode. Trust this workspace to verify its criteria.');
    }
    const folder = vscode.workspace.getWorkspaceFolder(uri);
    if (!folder || folder.uri.scheme !== 'file') throw new PrdVerifyError(`${uri.fsPath} is not inside a workspace folder on disk; open its folder to verify it.`);
    const relative = path.relative(folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
    const document = await vscode.workspace.openTextDocument(uri);
    const text = document.getText();
    const prd = engine().parsePrd(text);
    const errors = prd.diagnostics.filter((d) => d.severity === 'error');
    if (errors.length > 0) {
      const first = errors[0]!;
      throw new PrdVerifyError(`${relative}:${first.range.start.line + 1}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''})` : ''}. Fix the PRD's errors (see the Problems panel) and verify again.`);
    }
    const now = new Date().toISOString();
    const wanted = options.only ? new Set(options.only) : undefined;
    const criteria: AnyCriterion[] = [];
    for (const c of prd.criteria.filter((c) => !wanted || wanted.has(c.id))) {
      const converted = engine().toCoreCriterion(c, now);
      if (!converted.ok) throw new PrdVerifyError(`${relative}:${c.line + 1}: ${converted.message}`);
      criteria.push(converted.criterion);
    }
    if (criteria.length === 0) throw new PrdVerifyError(`${relative} has no criteria${wanted ? ' with those ids' : ''} to verify.`);

    const table = (await this.definitions.get()).effort.table;
    const level = effortLevel(prd.meta.effort, table);
    const host = await this.hostFor(folder, relative);
    const started = Date.now();
    const set = await engine().verifyCriteria(criteria, host, {
      signal: options.signal,
      parallelism: table.levels[level].parallelism,
      timeoutMs: CRITERION_TIMEOUT_MS,
      // The PRD's own text is not evidence that a criterion holds.
      excludeFiles: [relative],
      criteriaVersion: prd.meta.criteriaVersion ?? 0,
      ...(options.onResult ? { onResult: options.onResult } : {}),
    });
    this.log.info(`${relative}: ${set.summary} (${level}, ${Date.now() - started} ms)`);

    const written = await this.writeBack(uri, relative, set.results).then(
      () => true,
      (error: unknown) => {
        this.log.error(`writing outcomes into ${relative} failed: ${String(error)}`);
        void vscode.window.showErrorMessage(`Ideal State: the outcomes could not be written into ${relative}: ${error instanceof Error ? error.message : String(error)}. The PRD was left as it was.`);
        return false;
      },
    );
    try {
      const stored = engine().recordVerification(await this.stores.get(), { prdPath: relative, document: prd, text, criteria, set, effortTable: table, workspaceFolder: folder.name });
      if (!stored.stored) this.log.info(`verification report not stored: ${stored.reason}`);
    } catch (error) {
      this.log.error(`storing the verification report of ${relative} failed: ${String(error)}`);
    }
    return { uri, path: relative, criteria, set, document: prd, written };
  }

  /**
   * This window's adapters for verifying in `folder` (tasks, diagnostics, approvals with the
   * allow-list, the model judge, ripgrep) — also used by the ISC table to re-verify a run's
   * stored criteria. `prdPath` names the file approvals are remembered for.
   */
  async hostFor(folder: vscode.WorkspaceFolder, prdPath: string): Promise<VerifyHost> {
    return {
      workspaceRoot: folder.uri.fsPath,
      tasks: this.tasks,
      diagnostics: new EditorDiagnosticsSource(folder.uri.fsPath),
      approver: new EditorCommandApprover(this.context.workspaceState, this.settings, this.log, { prdPath }),
      excludeGlobs: filesExcludeGlobs(folder.uri),
      ...optional('judge', await this.judges.judge().catch((e: unknown) => void this.log.warn(`no model judge: ${String(e)}`))),
      // VS Code's own ripgrep (the engine falls back to `rg` on PATH, then its JS search).
      ...optional('ripgrepPath', engine().bundledRipgrep(vscode.env.appRoot)),
    };
  }

  /** Checkboxes and a LOG entry, as one undoable edit of the document as it is now (the user may have typed meanwhile). */
  private async writeBack(uri: vscode.Uri, relative: string, results: readonly CriterionResult[]): Promise<void> {
    const document = await vscode.workspace.openTextDocument(uri);
    const wasDirty = document.isDirty;
    const after = engine().writeOutcomes(document.getText(), results, { date: new Date().toISOString().slice(0, 10), by: 'VS Code' });
    const edit = minimalEdit(document, after);
    if (!edit) return;
    if (!(await vscode.workspace.applyEdit(edit))) throw new Error('the editor refused the edit');
    // An editor with unsaved changes stays unsaved: the user decides when to save their own edits.
    if (!wasDirty) await document.save();
    this.log.info(`outcomes written into ${relative}${wasDirty ? ' (unsaved: the editor had changes)' : ''}`);
  }
}

function effortLevel(written: string | undefined, table: { levels: Record<EffortLevel, unknown>; aliases: Record<string, EffortLevel | undefined> }): EffortLevel {
  const key = (written ?? '').trim().toUpperCase();
  if (key in table.levels) return key as EffortLevel;
  return table.aliases[key] ?? 'STANDARD';
}

function optional<K extends string, V>(key: K, value: V | undefined | void): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]: V });
}
