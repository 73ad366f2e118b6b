import type { ApprovalAnswer } from '../../agent/approvals';
import type { PendingApproval } from '../../agent/pending-approvals';

/** The words of an approval's buttons, the same in the notification, the ISC table and the palette. */
export const APPROVE = 'Approve';
export const ALWAYS = 'Always for this run';
export const SHOW_DIFF = 'Show Diff';
export const DENY = 'Deny';
/**
 * A run's verification commands only: remembered in the user's state folder
 * (src/app/denied-commands.ts), never asked about or run again until a person removes it.
 * An edit has no remembered denial, nor has an agent's own command.
 */
export const DENY_ALWAYS = 'Deny always';

type Asked = Pick<PendingApproval, 'kind' | 'remembersDenial'>;

/** The buttons of an approval's notification, in order. */
export function approvalButtons(approval: Asked): string[] {
  if (approval.kind === 'edit') return [APPROVE, ALWAYS, SHOW_DIFF, DENY];
  if (approval.kind === 'config') return [APPROVE, SHOW_DIFF, DENY];
  return approval.kind === 'command' && approval.remembersDenial ? [APPROVE, ALWAYS, DENY, DENY_ALWAYS] : [APPROVE, ALWAYS, DENY];
}

/** The answer a button gives; undefined for Show Diff, a closed notification, or a button this approval does not offer. */
export function answerOfButton(choice: string | undefined, approval: Asked): ApprovalAnswer | undefined {
  if (choice === undefined || !approvalButtons(approval).includes(choice)) return undefined;
  switch (choice) {
    case APPROVE:
      return 'approve';
    case ALWAYS:
      return 'always';
    case DENY:
      return 'deny';
    case DENY_ALWAYS:
      return 'never';
    default:
      return undefined;
  }
}

/** What "Deny always" did, and where it is undone: `file` is the workspace's denied-commands.json in the state folder. */
export function deniedAlwaysMessage(approval: Pick<PendingApproval, 'command' | 'summary'>, file: string): string {
  const commands = (approval.command ?? approval.summary).split('\n').map((l) => l.trim()).filter(Boolean);
  const one = commands.length === 1;
  const what = one ? `"${commands[0]}" is` : `these ${commands.length} commands are`;
  return `Denied always: ${what} not run or asked about again in this workspace, and a criterion that needs ${one ? 'it' : 'one'} stays UNKNOWN, "not approved". To undo, remove ${one ? 'it' : 'them'} from ${file}.`;
}
