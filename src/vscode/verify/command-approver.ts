import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { CommandApproval, CommandApprover } from '../../verify/types';
import { allowing, approvalAfter, ASK_MARKS, COMMAND_REASONS, decideCommands, type CommandDecision } from '../../verify/decide-commands';
import { allowList } from '../../verify/allowed-commands';
import { engine } from '../engine';

const APPROVED_KEY = 'idealState.verify.approvedCommandSets';
/** Enough for every PRD a workspace holds; the oldest approvals go first. */
const MAX_REMEMBERED = 500;

/** Which PRD the commands come from. */
export interface ApproverOptions {
  /** Workspace-relative path of the PRD whose commands these are. */
  readonly prdPath: string;
  /** The commands the PRD's run was approved to execute (an approval covers them here too), and that run's id. */
  readonly run?: { readonly id: string; readonly approvedCommands: readonly string[] };
  /**
   * Commands the person has just confirmed in the confirmation of the ideal-state_verify tool,
   * which names every command (VS Code asks before the tool runs): not asked a second time.
   */
  readonly confirmed?: readonly string[];
  /**
   * The commands a person did not approve, with why (kept in the user's state folder):
   * asked again, whatever the allow-list, the run or an earlier confirmation say; a
   * "Deny always" one is not asked about and does not run.
   */
  readonly denied?: () => Promise<ReadonlyMap<string, { readonly always: boolean; readonly reason: string }>>;
  /** Remembers the person's answer to a command denied before (forgotten on yes, kept on no). */
  readonly rememberAnswer?: (commands: readonly string[], approved: boolean) => Promise<void>;
  /**
   * The workspace folder: commands a criterion gained through a proposal (an agent's
   * ideal-state_propose_criteria) wait there for a person's yes, whatever the allow-list, a
   * run's approvals, a remembered answer or a tool's confirmation say: an agent may not approve
   * a command it wrote itself.
   */
  readonly workspace?: string;
}

/**
 * Commands from a PRD run only in a trusted workspace, and only once the user has seen and
 * confirmed them: a modal dialog lists every command that neither the allow-list nor the
 * approvals of the PRD's run cover,
 * and the answer is remembered per PRD path and exact command set (a hash in
 * workspaceState), so a changed or added command asks again.
 */
export class EditorCommandApprover implements CommandApprover {
  constructor(
    private readonly state: vscode.Memento,
    private readonly settings: Settings,
    private readonly log: Logger,
    private readonly options: ApproverOptions,
  ) {}

  async approve(commands: string[], signal: AbortSignal): Promise<CommandApproval> {
    if (!vscode.workspace.isTrusted) return approvalAfter(decideCommands(commands, { asker: 'dialog', trusted: false }));
    let denied: ReadonlyMap<string, { readonly always: boolean; readonly reason: string }>;
    try {
      denied = (await this.options.denied?.()) ?? new Map();
    } catch (error) {
      return { approved: false, reason: `not approved: ${error instanceof Error ? error.message : String(error)}` };
    }
    let awaiting: ReadonlySet<string> = new Set<string>();
    try {
      if (this.options.workspace && commands.some((c) => !denied.get(c)?.always)) awaiting = await engine().commandsAwaitingPerson(this.options.workspace);
    } catch (e) {
      return { approved: false, reason: `not approved: the record of proposed commands cannot be read, so none runs: ${(e as Error).message}` };
    }
    const list = allowList(this.settings.get('verifyAllowedCommands'));
    for (const problem of list.problems) this.log.warn(`idealState.verify.allowedCommands: ${problem}`);
    const byRun = new Set(this.options.run?.approvedCommands ?? []);
    const confirmed = new Set((this.options.confirmed ?? []).map((c) => c.trim()));
    const decisions = decideCommands(commands, {
      asker: 'dialog',
      allowList: allowing(list),
      denied,
      awaiting,
      approved: new Set([...byRun, ...confirmed]),
    });
    this.logCovered(commands, byRun, confirmed);
    const again = decisions.filter((d) => d.verdict === 'ask' && d.mark === 'denied-before').map((d) => d.command);
    const answer = await this.confirm(decisions, signal);
    if (again.length > 0) await this.options.rememberAnswer?.(again, answer?.yes ?? true).catch((e: unknown) => this.log.warn(`the answer about denied commands was not remembered: ${String(e)}`));
    return approvalAfter(decisions, answer);
  }

  /** What the log says of commands another approval already covers. */
  private logCovered(commands: readonly string[], byRun: ReadonlySet<string>, confirmed: ReadonlySet<string>): void {
    const unique = [...new Set(commands.map((c) => c.trim()).filter(Boolean))];
    const covered = unique.filter((c) => byRun.has(c)).length;
    if (covered > 0) this.log.info(`${covered} command${covered === 1 ? '' : 's'} of ${this.options.prdPath} approved in ${this.options.run!.id}, not asked again`);
    const inTool = unique.filter((c) => confirmed.has(c)).length;
    if (inTool > 0) this.log.info(`${inTool} command${inTool === 1 ? '' : 's'} of ${this.options.prdPath} confirmed in the ideal-state_verify tool's confirmation, not asked again`);
  }

  /**
   * The modal dialog for the commands the rule left to a person (undefined: nothing to ask). A
   * "no" refuses the whole set, as the dialog names it; a yes is remembered per PRD path and
   * exact command set, except for a command denied before or proposed by an agent.
   */
  private async confirm(decisions: readonly CommandDecision[], signal: AbortSignal): Promise<{ yes: boolean; refused: string; allOrNothing: true } | undefined> {
    const asked = decisions.flatMap((d) => (d.verdict === 'ask' ? [d] : []));
    const markOf = new Map(asked.map((d) => [d.command.trim(), d.mark]));
    const toConfirm = [...new Set(asked.map((d) => d.command.trim()).filter(Boolean))].sort();
    if (toConfirm.length === 0) return undefined;
    const personal = toConfirm.some((c) => markOf.get(c) !== undefined);
    const hash = createHash('sha256').update(JSON.stringify([this.options.prdPath, toConfirm])).digest('hex');
    const remembered = this.state.get<string[]>(APPROVED_KEY, []);
    if (remembered.includes(hash) && !personal) return { yes: true, refused: '', allOrNothing: true };
    if (signal.aborted) return { yes: false, refused: 'verification was cancelled before the commands were confirmed', allOrNothing: true };

    const awaiting = toConfirm.filter((c) => markOf.get(c) === 'proposed');
    const run = toConfirm.length === 1 ? 'Run It' : 'Run Them';
    const mark = (c: string) => {
      const m = markOf.get(c);
      return m ? ` ${ASK_MARKS[m].dialog}` : '';
    };
    const answer = await vscode.window.showWarningMessage(
      `${this.options.prdPath} runs ${toConfirm.length === 1 ? 'this command' : `these ${toConfirm.length} commands`} to verify its criteria. Run ${toConfirm.length === 1 ? 'it' : 'them'}?`,
      {
        modal: true,
        detail: `${toConfirm.map((c) => `• ${c}${mark(c)}`).join('\n')}\n\nThey run in the workspace folder. You are asked again when a command changes.${awaiting.length > 0 ? ' A command an agent proposed is asked for even when the allow-list matches it.' : ''} Commands you always trust can go in the setting idealState.verify.allowedCommands.`,
      },
      run,
    );
    if (answer !== run) {
      this.log.info(`commands of ${this.options.prdPath} not confirmed`);
      return { yes: false, refused: COMMAND_REASONS.dialogNo, allOrNothing: true };
    }
    await this.state.update(APPROVED_KEY, [...remembered.filter((h) => h !== hash), hash].slice(-MAX_REMEMBERED));
    // The person's yes, kept where the command line and the MCP server see it too.
    for (const c of awaiting) await engine().allowProposedCommand(this.options.workspace!, c, new Date());
    this.log.info(`commands of ${this.options.prdPath} confirmed: ${toConfirm.length}`);
    return { yes: true, refused: '', allOrNothing: true };
  }
}
