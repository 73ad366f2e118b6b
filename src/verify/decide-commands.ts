import type { CommandApproval } from './types';
import { allowList, type AllowList } from './allowed-commands';
import { VERIFY_COMMANDS_FILE } from './verify-commands-path';

/**
 * The one rule for which of a PRD's commands run. Every surface that verifies (`ideal-state
 * verify`, the stop gate, the MCP server, Verify Criteria, the Testing view, a run, its probe, the
 * loop) gathers what it knows into `CommandFacts` and asks here; it then asks whoever it can ask
 * about the commands answered `ask`, and turns the person's answer into an approval with
 * `approvalAfter`. Pure: reading the records and asking a person are the caller's.
 *
 * The order of the rules is the policy:
 * 1. commands turned off, or a workspace nobody trusts: nothing runs;
 * 2. a person's "Deny always": never runs, never asked again;
 * 3. with nobody to ask, a command a person denied before or one an agent's proposal brought
 *    does not run, whatever `--yes` or an allow-list says;
 * 4. with someone to ask, those two go back to the person (a proposed one runs under a terminal's
 *    `--yes`, which is that person's yes to every command ahead);
 * 5. `--yes`, an allow-list, or what the run or the tool's confirmation already approved: runs;
 * 6. anything else is asked, or refused when nobody can be asked.
 */

/** Who can answer a question about a command: a person on a terminal or in a modal dialog, a run's approval policy, or nobody. */
export type CommandAsker = 'terminal' | 'dialog' | 'policy' | 'nobody' | 'probe';

export interface CommandFacts {
  /** `--no-commands`: no command runs. */
  readonly off?: boolean;
  /** False in a workspace that is not trusted (Restricted Mode): no command runs. */
  readonly trusted?: boolean;
  /** `--yes`: every command runs that needs no particular person's yes. */
  readonly yes?: boolean;
  /** Who answers an `ask`. `probe`: nobody, and the words say the criterion is not probed. */
  readonly asker: CommandAsker;
  /** The allow-list in force (a committed file, a setting, a run's policy answering without a person); absent: none. */
  readonly allowList?: { readonly allows: (command: string) => boolean };
  /** Remembered or noted denials, by exact command: `always` is "Deny always". */
  readonly denied?: ReadonlyMap<string, { readonly always: boolean; readonly reason: string }>;
  /** Commands an agent's proposal brought that still wait for a person. */
  readonly awaiting?: ReadonlySet<string>;
  /** Commands a person already approved for this run, or just confirmed in a tool's confirmation. */
  readonly approved?: ReadonlySet<string>;
}

/** Why a command waits for a person's own answer, shown beside it in the question. */
export type AskMark = 'denied-before' | 'proposed';

export type CommandDecision =
  | { readonly command: string; readonly verdict: 'run' }
  | { readonly command: string; readonly verdict: 'ask'; readonly mark?: AskMark }
  | { readonly command: string; readonly verdict: 'refuse'; readonly reason: string };

/** The reasons a user reads, one place for each. */
export const COMMAND_REASONS = {
  off: 'commands were turned off with --no-commands',
  untrusted: 'this workspace is not trusted (Restricted Mode), so commands from a PRD do not run; trust the workspace to verify them',
  proposed: 'it came with a criterion an agent proposed, and runs only once a person allows it: `ideal-state criteria pending` on a terminal',
  notListed: `not in ${VERIFY_COMMANDS_FILE}; pass --yes to run every PRD command`,
  noList: `no terminal to ask, and no ${VERIFY_COMMANDS_FILE} allows it; list it there, or pass --yes to run every PRD command`,
  notProbed: "not probed: this command needs a person's approval, and a probe asks nobody",
  notApproved: 'not approved',
  setNotApproved: 'the commands of this PRD were not approved',
  terminalNo: 'not approved: the commands were not approved on the terminal',
  dialogNo: 'not approved: the commands were not confirmed',
} as const;

/** The words beside a command in the question, for why it is asked. */
export const ASK_MARKS: Readonly<Record<AskMark, { terminal: string; dialog: string }>> = {
  'denied-before': { terminal: '(not approved before: asked again)', dialog: '(not approved before)' },
  proposed: { terminal: "(added through an agent's proposal)", dialog: "(added through an agent's proposal)" },
};

export function decideCommands(commands: readonly string[], facts: CommandFacts): CommandDecision[] {
  return commands.map((command) => decideOne(command, facts));
}

function decideOne(command: string, facts: CommandFacts): CommandDecision {
  const refuse = (reason: string): CommandDecision => ({ command, verdict: 'refuse', reason });
  if (facts.off) return refuse(COMMAND_REASONS.off);
  if (facts.trusted === false) return refuse(COMMAND_REASONS.untrusted);
  const denial = facts.denied?.get(command);
  if (denial?.always) return refuse(denial.reason);
  const proposed = facts.awaiting?.has(command) === true;
  const nobody = facts.asker === 'nobody' || facts.asker === 'probe';
  if (nobody) {
    if (denial) return refuse(facts.asker === 'probe' ? COMMAND_REASONS.notProbed : denial.reason);
    if (proposed) return refuse(facts.asker === 'probe' ? COMMAND_REASONS.notProbed : COMMAND_REASONS.proposed);
  } else {
    if (denial) return { command, verdict: 'ask', mark: 'denied-before' };
    // A terminal's --yes is that person's yes to every command ahead, proposed ones included.
    if (proposed && !(facts.yes && facts.asker === 'terminal')) return { command, verdict: 'ask', mark: 'proposed' };
  }
  if (facts.yes || facts.approved?.has(command) || facts.allowList?.allows(command)) return { command, verdict: 'run' };
  if (!nobody) return { command, verdict: 'ask' };
  if (facts.asker === 'probe') return refuse(COMMAND_REASONS.notProbed);
  return refuse(facts.allowList ? COMMAND_REASONS.notListed : COMMAND_REASONS.noList);
}

/**
 * What a run's command patterns say (`allowCommands`: the settings, `--approve commands`), as
 * facts for the rule: `*` alone is the person's yes to every command, not a pattern; any other
 * goes through the one allow-list matcher, where `*` never spans a shell operator.
 */
export function patternFacts(patterns: readonly string[]): Pick<CommandFacts, 'yes' | 'allowList'> {
  if (patterns.some((p) => p.trim() === '*')) return { yes: true };
  return { allowList: allowing(allowList(patterns)) };
}

/** An allow-list read by the one matcher (a committed file, a setting) as the rule's fact: a command it matches is allowed. */
export function allowing(list: Pick<AllowList, 'match'>): NonNullable<CommandFacts['allowList']> {
  return { allows: (command) => list.match(command) !== undefined };
}

/**
 * Whether a request's command line(s) run with no question to anyone (an agent's command, one
 * a line): the rule answers run for every line. An empty request names no command an allow-list
 * could match, so only a yes to every command covers it.
 */
export function runsUnasked(commands: string, facts: CommandFacts): boolean {
  const lines = commands.split('\n').map((c) => c.trim()).filter(Boolean);
  if (lines.length === 0) return facts.yes === true && !facts.off && facts.trusted !== false;
  return decideCommands(lines, facts).every((d) => d.verdict === 'run');
}

/** The commands of these decisions with this verdict. */
export function withVerdict(decisions: readonly CommandDecision[], verdict: CommandDecision['verdict']): string[] {
  return decisions.filter((d) => d.verdict === verdict).map((d) => d.command);
}

/**
 * The approval the verification engine reads, once the asked commands were answered (`answer`:
 * undefined when nothing was asked). `refused` is why an asked command that was not approved does
 * not run; `allOrNothing`: a no refuses every command, as the editor's dialog names the set.
 */
export function approvalAfter(decisions: readonly CommandDecision[], answer?: { yes: boolean; refused: string; allOrNothing?: boolean }): CommandApproval {
  const reasons: Record<string, string> = {};
  const only: string[] = [];
  for (const d of decisions) {
    const no = answer !== undefined && !answer.yes;
    if (d.verdict === 'refuse') reasons[d.command] = d.reason;
    else if (d.verdict === 'run' && !(no && answer.allOrNothing)) only.push(d.command);
    else if (d.verdict === 'ask' && answer === undefined) reasons[d.command] = COMMAND_REASONS.notApproved;
    else if (no) reasons[d.command] = answer.refused;
    else only.push(d.command);
  }
  const reason = answer && !answer.yes ? answer.refused : COMMAND_REASONS.notApproved;
  return { approved: only.length > 0, only, reason, ...(Object.keys(reasons).length > 0 ? { reasons } : {}) };
}
