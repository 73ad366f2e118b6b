import { WaitingTime } from '../algorithm/budget-tracker';
import { patternFacts, runsUnasked, type CommandFacts } from '../verify/decide-commands';

/**
 * Approve once, deny once, approve every request of this kind for the rest of the run, or
 * (commands only) deny this exact command always: remembered for the workspace.
 */
export type ApprovalAnswer = 'approve' | 'deny' | 'always' | 'never';

/**
 * What is asked: an edit of the workspace's files, a command, or a change to a file that steers
 * what runs (`config`: `.vscode/settings.json`, `.ideal-state/capabilities.yaml`… see
 * control-files.ts). A config change carries the same fields as an edit, but "approve edits"
 * never covers it, nor does "Always for this run": each one is asked on its own.
 */
export type ApprovalKind = 'edit' | 'command' | 'config';

export interface ApprovalRequest {
  readonly kind: ApprovalKind;
  /** One line for the prompt, e.g. "Edit src/app.ts", "Change configuration: .vscode/settings.json — …". */
  readonly title: string;
  /** A line summary of an edit's change, or the command line(s). */
  readonly detail: string;
  /** An edit's (or config change's) workspace-relative path (forward slashes), so an editor can diff the file itself. */
  readonly path?: string;
  /** An edit's whole proposed text: what the file holds once approved. */
  readonly proposed?: string;
  /** An edit that creates the file (nothing to diff against but emptiness). */
  readonly creates?: boolean;
  /** A config change: what changing this file can do, e.g. "this can change what Ideal State or VS Code runs". */
  readonly effect?: string;
  /** A command's exact command line(s), one a line. */
  readonly command?: string;
  /** Where a command runs: the workspace folder. */
  readonly cwd?: string;
  /** The run that asks, when the approver serves several (a loop's sub-runs share one). */
  readonly runId?: string;
  /**
   * A command whose "Deny always" is remembered for the workspace (a run's verification
   * commands, src/app/verification-approval.ts): only such a request offers "Deny always".
   */
  readonly remembersDenial?: boolean;
}

/** What a run's agent asks through: the policy, for one run. */
export interface RunApprovals {
  approve(request: ApprovalRequest, signal: AbortSignal): Promise<boolean>;
}

/** Asks a person: the editor shows a modal with the diff, the terminal a prompt. */
export interface Approver {
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
  /** Set when no person answers (why), so a denial is reported as that, not as the user's. */
  readonly unattended?: string;
}

export interface ApprovalSettings {
  /** Edits need no approval (settings, or `--approve edits`); never configuration changes. */
  readonly autoApproveEdits?: boolean;
  /**
   * Commands that need no approval: patterns of the one allow-list matcher, or `*` alone for every
   * command (`--approve commands`); the one rule for commands reads them (src/verify/decide-commands.ts).
   */
  readonly allowCommands?: readonly string[];
  /** An untrusted workspace gets no edits and no commands at all. */
  readonly trusted: boolean;
}

/** Denies everything that needs a person: for a terminal with no one at it. */
export const denyAll: Approver = { ask: async () => 'deny', unattended: 'no terminal to ask' };

/**
 * One run's approvals: the allow-list and auto-approve first, then "Always for
 * this run" answers, then the person. Every decision is reported for the run's events.
 * A configuration change is always the person's, one change at a time: neither auto-approved
 * edits nor an "Always" answer reach it (an "Always" given to one approves that one only).
 */
export class ApprovalPolicy {
  private readonly always = new Set<ApprovalKind>();
  /** What the allow-list says, for the one rule that decides commands; asked when a person could be. */
  private readonly commands: CommandFacts;

  /**
   * @param waiting where the time a person takes to answer goes: the run's budget leaves it
   *   out (BudgetTracker), and the editor shows it as "waiting for approval".
   */
  constructor(
    private readonly approver: Approver,
    private readonly settings: ApprovalSettings,
    private readonly onDecision?: (request: ApprovalRequest, approved: boolean, how: string) => void,
    readonly waiting: WaitingTime = new WaitingTime(),
  ) {
    this.commands = { asker: 'policy', trusted: settings.trusted, ...patternFacts(settings.allowCommands ?? []) };
  }

  /** This policy for one run: each request names the run that asks. */
  forRun(runId: string): RunApprovals {
    return { approve: (request, signal) => this.approve({ ...request, runId }, signal) };
  }

  /**
   * Whether a command would run with no question to a person (the allow-list, `--approve
   * commands`, an "Always for this run" answer): what a probe may run (src/algorithm/probe.ts).
   * Asks nobody and reports no decision.
   */
  allowsWithoutAsking(command: string): boolean {
    if (!this.settings.trusted) return false;
    return runsUnasked(command, this.commands) || this.always.has('command');
  }

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    return (await this.decide(request, signal)).approved;
  }

  /**
   * The decision and how it was made. `askPerson`: only a person may answer (a command a
   * person denied before): neither the allow-list nor "Always for this run" approves it.
   */
  async decide(request: ApprovalRequest, signal: AbortSignal, options: { askPerson?: boolean } = {}): Promise<{ approved: boolean; how: string; denyAlways?: boolean; person: boolean }> {
    const decide = (approved: boolean, how: string, person = false, denyAlways = false) => {
      this.onDecision?.(request, approved, how);
      return { approved, how, person, ...(denyAlways ? { denyAlways } : {}) };
    };
    if (!this.settings.trusted) return decide(false, 'untrusted workspace');
    if (request.kind === 'edit' && this.settings.autoApproveEdits) return decide(true, 'auto-approved edits');
    if (!options.askPerson && request.kind === 'command' && runsUnasked(request.command ?? request.detail, this.commands)) return decide(true, 'allow-listed command');
    if (!options.askPerson && request.kind !== 'config' && this.always.has(request.kind)) return decide(true, `always for this run`);
    const waited = this.waiting.begin();
    let answer: ApprovalAnswer;
    try {
      answer = await this.approver.ask(request, signal);
    } finally {
      waited();
    }
    if (answer === 'always' && request.kind !== 'config') this.always.add(request.kind);
    const person = !this.approver.unattended;
    const denied = this.approver.unattended ? `denied: ${this.approver.unattended}` : 'denied by the user';
    // "Deny always" is for a command; for anything else it is a plain denial.
    if (answer === 'never') return decide(false, request.kind === 'command' ? 'denied always by the user' : denied, person, request.kind === 'command');
    return decide(answer !== 'deny', answer === 'deny' ? denied : answer === 'always' && request.kind !== 'config' ? 'approved for the rest of the run' : 'approved by the user', person);
  }
}
