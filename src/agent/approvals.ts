/** Approve once, deny once, or approve every request of this kind for the rest of the run. */
export type ApprovalAnswer = 'approve' | 'deny' | 'always';

export interface ApprovalRequest {
  readonly kind: 'edit' | 'command';
  /** One line for the prompt, e.g. "Edit src/app.ts". */
  readonly title: string;
  /** A line summary of an edit's change, or the command line(s). */
  readonly detail: string;
  /** An edit's workspace-relative path (forward slashes), so an editor can diff the file itself. */
  readonly path?: string;
  /** An edit's whole proposed text: what the file holds once approved. */
  readonly proposed?: string;
  /** An edit that creates the file (nothing to diff against but emptiness). */
  readonly creates?: boolean;
  /** A command's exact command line(s), one a line. */
  readonly command?: string;
  /** Where a command runs: the workspace folder. */
  readonly cwd?: string;
}

/** Asks a person: the editor shows a modal with the diff, the terminal a prompt. */
export interface Approver {
  ask(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalAnswer>;
}

export interface ApprovalSettings {
  /** Edits need no approval (settings, or `--approve edits`). */
  readonly autoApproveEdits?: boolean;
  /** Commands that need no approval: exact commands or prefixes ending in `*` (or `--approve commands` for all). */
  readonly allowCommands?: readonly string[];
  /** An untrusted workspace gets no edits and no commands at all. */
  readonly trusted: boolean;
}

/** Denies everything that needs a person: for a terminal with no one at it. */
export const denyAll: Approver = { ask: async () => 'deny' };

/**
 * One run's approvals (DESIGN §9): the allow-list and auto-approve first, then "Always for
 * this run" answers, then the person. Every decision is reported for the run's events.
 */
export class ApprovalPolicy {
  private readonly always = new Set<ApprovalRequest['kind']>();

  constructor(
    private readonly approver: Approver,
    private readonly settings: ApprovalSettings,
    private readonly onDecision?: (request: ApprovalRequest, approved: boolean, how: string) => void,
  ) {}

  async approve(request: ApprovalRequest, signal: AbortSignal): Promise<boolean> {
    const decide = (approved: boolean, how: string) => {
      this.onDecision?.(request, approved, how);
      return approved;
    };
    if (!this.settings.trusted) return decide(false, 'untrusted workspace');
    if (request.kind === 'edit' && this.settings.autoApproveEdits) return decide(true, 'auto-approved edits');
    if (request.kind === 'command' && allowed(request.command ?? request.detail, this.settings.allowCommands ?? [])) return decide(true, 'allow-listed command');
    if (this.always.has(request.kind)) return decide(true, `always for this run`);
    const answer = await this.approver.ask(request, signal);
    if (answer === 'always') this.always.add(request.kind);
    return decide(answer !== 'deny', answer === 'deny' ? 'denied by the user' : answer === 'always' ? 'approved for the rest of the run' : 'approved by the user');
  }
}

function allowed(command: string, patterns: readonly string[]): boolean {
  const c = command.trim();
  return patterns.some((p) => p === '*' || (p.endsWith('*') ? c.startsWith(p.slice(0, -1)) : c === p.trim()));
}
