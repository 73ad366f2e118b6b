import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import type { Logger } from '../../model/log';
import type { Settings } from '../../model/settings';
import type { CommandApprover } from '../../verify/types';
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
   * The commands a person did not approve, with why (issue 28 §3, the user's state folder):
   * asked again, whatever the allow-list, the run or an earlier confirmation say; a
   * "Deny always" one is not asked about and does not run.
   */
  readonly denied?: () => Promise<ReadonlyMap<string, { readonly always: boolean; readonly reason: string }>>;
  /** Remembers the person's answer to a command denied before (forgotten on yes, kept on no). */
  readonly rememberAnswer?: (commands: readonly string[], approved: boolean) => Promise<void>;
  /**
   * The workspace folder: commands a criterion gained through a proposal (an agent's
   * ideal-state_propose_criteria) wait there for a person's yes, whatever the allow-list, a
   * run's approvals, a remembered answer or a tool's confirmation say (issue 23).
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

  async approve(commands: string[], signal: AbortSignal): Promise<{ approved: boolean; reason?: string; only?: readonly string[]; reasons?: Readonly<Record<string, string>> }> {
    if (!vscode.workspace.isTrusted) {
      return { approved: false, reason: 'this workspace is not trusted (Restricted Mode), so commands from a PRD do not run; trust the workspace to verify them' };
    }
    let denied: ReadonlyMap<string, { readonly always: boolean; readonly reason: string }>;
    try {
      denied = (await this.options.denied?.()) ?? new Map();
    } catch (error) {
      return { approved: false, reason: `not approved: ${error instanceof Error ? error.message : String(error)}` };
    }
    const never = commands.filter((c) => denied.get(c)?.always);
    const reasons = Object.fromEntries(never.map((c) => [c, denied.get(c)!.reason]));
    const runnable = commands.filter((c) => !never.includes(c));
    const again = runnable.filter((c) => denied.has(c));
    const answer = await this.approveRunnable(runnable, new Set(again.map((c) => c.trim())), signal);
    if (again.length > 0) await this.options.rememberAnswer?.(again, answer.approved).catch((e: unknown) => this.log.warn(`the answer about denied commands was not remembered: ${String(e)}`));
    if (never.length === 0) return answer;
    return answer.approved ? { approved: true, only: runnable, reason: 'not approved', reasons } : { ...answer, reasons };
  }

  private async approveRunnable(commands: string[], again: ReadonlySet<string>, signal: AbortSignal): Promise<{ approved: boolean; reason?: string }> {
    if (commands.length === 0) return { approved: true };
    const unique = [...new Set(commands.map((c) => c.trim()).filter(Boolean))].sort();
    const list = allowList(this.settings.get('verifyAllowedCommands'));
    for (const problem of list.problems) this.log.warn(`idealState.verify.allowedCommands: ${problem}`);
    let proposed: ReadonlySet<string>;
    try {
      proposed = this.options.workspace ? await engine().commandsAwaitingPerson(this.options.workspace) : new Set<string>();
    } catch (e) {
      return { approved: false, reason: `not approved: the record of proposed commands cannot be read, so none runs: ${(e as Error).message}` };
    }
    const byRun = new Set(this.options.run?.approvedCommands ?? []);
    const confirmed = new Set((this.options.confirmed ?? []).map((c) => c.trim()));
    const awaiting = unique.filter((c) => proposed.has(c));
    // A command a person denied before, or one an agent's proposal brought, is theirs to answer: nothing else covers it.
    const toConfirm = unique.filter((c) => again.has(c) || proposed.has(c) || (list.match(c) === undefined && !byRun.has(c) && !confirmed.has(c)));
    const covered = unique.filter((c) => byRun.has(c)).length;
    if (covered > 0) this.log.info(`${covered} command${covered === 1 ? '' : 's'} of ${this.options.prdPath} approved in ${this.options.run!.id}, not asked again`);
    const inTool = unique.filter((c) => confirmed.has(c)).length;
    if (inTool > 0) this.log.info(`${inTool} command${inTool === 1 ? '' : 's'} of ${this.options.prdPath} confirmed in the ideal-state_verify tool's confirmation, not asked again`);
    if (toConfirm.length === 0) return { approved: true };

    const hash = createHash('sha256').update(JSON.stringify([this.options.prdPath, toConfirm])).digest('hex');
    const remembered = this.state.get<string[]>(APPROVED_KEY, []);
    if (remembered.includes(hash) && !toConfirm.some((c) => again.has(c) || proposed.has(c))) return { approved: true };
    if (signal.aborted) return { approved: false, reason: 'verification was cancelled before the commands were confirmed' };

    const run = toConfirm.length === 1 ? 'Run It' : 'Run Them';
    const answer = await vscode.window.showWarningMessage(
      `${this.options.prdPath} runs ${toConfirm.length === 1 ? 'this command' : `these ${toConfirm.length} commands`} to verify its criteria. Run ${toConfirm.length === 1 ? 'it' : 'them'}?`,
      {
        modal: true,
        detail: `${toConfirm.map((c) => `• ${c}${again.has(c) ? ' (not approved before)' : proposed.has(c) ? " (added through an agent's proposal)" : ''}`).join('\n')}\n\nThey run in the workspace folder. You are asked again when a command changes.${awaiting.length > 0 ? ' A command an agent proposed is asked for even when the allow-list matches it.' : ''} Commands you always trust can go in the setting idealState.verify.allowedCommands.`,
      },
      run,
    );
    if (answer !== run) {
      this.log.info(`commands of ${this.options.prdPath} not confirmed`);
      return { approved: false, reason: 'not approved: the commands were not confirmed' };
    }
    await this.state.update(APPROVED_KEY, [...remembered.filter((h) => h !== hash), hash].slice(-MAX_REMEMBERED));
    // The person's yes, kept where the command line and the MCP server see it too.
    for (const c of awaiting) await engine().allowProposedCommand(this.options.workspace!, c, new Date());
    this.log.info(`commands of ${this.options.prdPath} confirmed: ${toConfirm.length}`);
    return { approved: true };
  }
}
