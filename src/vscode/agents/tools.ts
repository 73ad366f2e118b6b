import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { DefinitionsHost } from '../definitions-host';
import { engine } from '../engine';
import type { StoreHost } from '../store-host';
import { signalFrom } from '../verify/abort';
import { EditorDiagnosticsSource } from '../verify/diagnostics-source';
import { minimalEdit } from '../verify/prd-text-edit';
import type { PrdVerifier } from '../verify/verify-prd';
import { criteriaRows, preparedTarget } from './editor-criteria';
import { resolvePrdTarget } from './prd-target';
import { proposeEdit } from './propose';
import type { CriteriaAnswer, ToolVerifyAnswer } from '../../app/done-gate';
import { criteriaInput, proposeConfirmation, proposeInput, ToolInputError, verifyConfirmation, verifyInput } from './tool-text';

export const TOOL_NAMES = { criteria: 'ideal-state_criteria', verify: 'ideal-state_verify', propose: 'ideal-state_propose_criteria' } as const;

export interface AgentDeps {
  readonly verifier: PrdVerifier;
  readonly stores: StoreHost;
  readonly definitions: DefinitionsHost;
  readonly log: Logger;
}

const RESTRICTED = 'Verifying runs commands and tasks from the PRD, so it is off in Restricted Mode. The user must trust this workspace first; until then nothing is verified and the work cannot be called done.';

/** How many shown confirmations wait for their invocation at most (a person confirms one at a time). */
const MAX_PENDING_CONFIRMATIONS = 20;

/** The three operations the tools and @ideal-state share: same answers in both places. */
export class AgentOperations {
  /** The commands each verify confirmation named, by the tool's input, until that invocation takes them. */
  private readonly confirmations = new Map<string, readonly string[]>();

  constructor(private readonly deps: AgentDeps) {}

  async criteria(input: unknown): Promise<CriteriaAnswer> {
    const target = await resolvePrdTarget(criteriaInput(input).prd);
    const { prd } = await preparedTarget(target, (await this.deps.definitions.get()).effort.table);
    return { prd: target.relative, criteriaVersion: prd.criteriaVersion, criteria: await criteriaRows(this.deps.stores, target.relative, prd.criteria) };
  }

  /** The confirmation to show before verifying, or none when no command will run (reads, greps and diagnostics change nothing). */
  async verifyConfirmation(input: unknown): Promise<{ title: string; message: string } | undefined> {
    if (!vscode.workspace.isTrusted) throw new ToolInputError(RESTRICTED);
    const wanted = verifyInput(input);
    const target = await resolvePrdTarget(wanted.prd);
    const { prd } = await preparedTarget(target, (await this.deps.definitions.get()).effort.table, wanted.criteria);
    const commands = engine().commandsOf(prd.criteria, { diagnostics: new EditorDiagnosticsSource(target.folder.uri.fsPath) });
    if (commands.length === 0) return undefined;
    // VS Code invokes the tool only once the person confirmed this list: the verification does not ask again for it.
    this.confirmations.delete(JSON.stringify(input));
    this.confirmations.set(JSON.stringify(input), commands);
    while (this.confirmations.size > MAX_PENDING_CONFIRMATIONS) this.confirmations.delete(this.confirmations.keys().next().value!);
    return verifyConfirmation(target.relative, wanted.criteria ?? [], commands);
  }

  /** `confirmed`: true when the call went through the tool's confirmation (the language-model tool), false for /verify in chat. */
  async verify(input: unknown, token: vscode.CancellationToken, confirmed = false): Promise<ToolVerifyAnswer> {
    if (!vscode.workspace.isTrusted) throw new ToolInputError(RESTRICTED);
    const wanted = verifyInput(input);
    const target = await resolvePrdTarget(wanted.prd);
    const confirmedCommands = confirmed ? this.confirmations.get(JSON.stringify(input)) : undefined;
    this.confirmations.delete(JSON.stringify(input));
    const abort = signalFrom(token);
    try {
      // A command the PRD gained since the confirmation was shown is not in the list, so it is asked for.
      const v = await this.deps.verifier.verify(target.uri, { signal: abort.signal, ...(wanted.criteria ? { only: wanted.criteria } : {}), ...(confirmedCommands ? { confirmedCommands } : {}) });
      // Under the file's own ids (an ISA's C1, ISC-2.1), with their priorities: the answer the MCP server and the gate give.
      // Some ids: the verdict covers every CRITICAL criterion of the file, or there is none (partial), as the MCP server answers.
      return engine().coveringAnswer(engine().verifyAnswer(v.path, v.prepared, v.shown), v.prepared, wanted.criteria);
    } finally {
      abort.dispose();
    }
  }

  async proposal(input: unknown) {
    if (!vscode.workspace.isTrusted) throw new ToolInputError('Adding criteria writes the PRD, which Ideal State does not do in Restricted Mode. The user must trust this workspace first.');
    const wanted = proposeInput(input);
    const target = await resolvePrdTarget(wanted.prd);
    const document = await vscode.workspace.openTextDocument(target.uri);
    return { target, document, text: document.getText(), edit: proposeEdit(document.getText(), target.relative, wanted.criteria, new Date().toISOString().slice(0, 10)) };
  }

  /** Writes the proposal through a WorkspaceEdit and saves it (the save syncs the store), unless the PRD changed since it was shown. */
  async propose(input: unknown): Promise<{ prd: string; criteriaVersion: number; added: readonly string[]; lines: readonly string[]; note: string }> {
    const { target, document, edit } = await this.proposal(input);
    const workspaceEdit = minimalEdit(document, edit.after);
    if (!workspaceEdit || !(await vscode.workspace.applyEdit(workspaceEdit))) throw new ToolInputError(`the editor refused the edit of ${target.relative}; nothing was written`);
    await document.save();
    // The person confirmed the criteria; each command in them still waits for their yes before it runs (as through the MCP server).
    await engine().recordProposedCommands(target.folder.uri.fsPath, edit.commands.map((c) => ({ command: c.command, prd: target.relative, criterion: c.id, addedAt: new Date().toISOString() })));
    this.deps.log.info(`${target.relative}: added ${edit.added.join(', ')} as criteria version ${edit.version} (ideal-state_propose_criteria)`);
    return { prd: target.relative, criteriaVersion: edit.version, added: edit.added, lines: edit.lines, note: `Added as criteria version ${edit.version}. Verify them with ideal-state_verify before saying the work is done.` };
  }
}

const json = (value: unknown) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(JSON.stringify(value, null, 2))]);

/** The language-model tools (package.json `languageModelTools`), for Copilot agent mode and any chat agent in the editor. */
export function registerLanguageModelTools(ops: AgentOperations): vscode.Disposable {
  return vscode.Disposable.from(
    vscode.lm.registerTool<unknown>(TOOL_NAMES.criteria, {
      invoke: async (options) => json(await ops.criteria(options.input)),
    }),
    vscode.lm.registerTool<unknown>(TOOL_NAMES.verify, {
      // Throws (no confirmation shown) for a path outside the workspace, a bad PRD or Restricted Mode.
      prepareInvocation: async (options) => {
        const confirmation = await ops.verifyConfirmation(options.input);
        return { invocationMessage: 'Verifying criteria with Ideal State', ...(confirmation ? { confirmationMessages: confirmation } : {}) };
      },
      invoke: async (options, token) => json(await ops.verify(options.input, token, true)),
    }),
    vscode.lm.registerTool<unknown>(TOOL_NAMES.propose, {
      prepareInvocation: async (options) => {
        const { target, edit } = await ops.proposal(options.input);
        return { invocationMessage: `Adding criteria to ${target.relative}`, confirmationMessages: proposeConfirmation(target.relative, edit.lines, edit.version) };
      },
      invoke: async (options) => json(await ops.propose(options.input)),
    }),
  );
}
