import type { ApprovalPolicy, ApprovalRequest } from '../agent/approvals';
import type { CommandApproval } from '../verify/types';
import { approvalAfter, COMMAND_REASONS, decideCommands, withVerdict } from '../verify/decide-commands';
import { deniedCommands, deniedCommandsFile, denialOf, denialReason, forgetDenials, recordDenials, type DeniedCommand } from './denied-commands';

/**
 * A run's approval of its criteria's commands, once for the set: a command a
 * person chose "Deny always" for is not asked about and does not run; one a person denied
 * before is asked again (the allow-list and "Always for this run" do not answer for it); a
 * denial is remembered in the user's state folder, an approval forgets a one-time denial.
 */
export async function approveVerificationCommands(
  commands: readonly string[],
  signal: AbortSignal,
  deps: { approvals: ApprovalPolicy; request: (commands: readonly string[]) => ApprovalRequest; workspace: string; env: NodeJS.ProcessEnv; now: () => Date },
): Promise<CommandApproval> {
  let remembered: Map<string, DeniedCommand>;
  try {
    remembered = await deniedCommands(deps.workspace, deps.env);
  } catch (error) {
    // Unreadable: nothing runs rather than a denied command slipping through.
    return { approved: false, reason: `not approved: ${(error as Error).message}` };
  }
  const where = await deniedCommandsFile(deps.workspace, deps.env);
  const denied = new Map(commands.flatMap((c) => {
    const d = denialOf(remembered, c);
    return d ? [[c, { always: d.always, reason: denialReason(d, where) }] as const] : [];
  }));
  // The run's policy answers the rest: it knows the allow-list and "Always for this run".
  const decisions = decideCommands(commands, { asker: 'policy', denied });
  const ask = withVerdict(decisions, 'ask');
  if (ask.length === 0) return { approved: false, reason: denialReason({ always: true, deniedAt: '' }, where), reasons: approvalAfter(decisions).reasons ?? {} };
  // A command a person denied before is theirs to answer: neither the allow-list nor "Always for this run" covers it.
  const askPerson = decisions.some((d) => d.verdict === 'ask' && d.mark === 'denied-before');
  // Here a "Deny always" is remembered (below), so the person is offered it.
  const decision = await deps.approvals.decide({ ...deps.request(ask), remembersDenial: true }, signal, { askPerson });
  try {
    if (decision.approved && decision.person) await forgetDenials(deps.workspace, ask, deps.env);
    if (!decision.approved) await recordDenials(deps.workspace, ask, { always: decision.denyAlways === true, now: deps.now() }, deps.env);
  } catch {
    // The decision stands for this verification; a record that cannot be written is asked again next time.
  }
  const approval = approvalAfter(decisions, { yes: decision.approved, refused: `not approved (${decision.how})` });
  return decision.approved ? approval : { ...approval, approved: false };
}

/**
 * The probe's approval: nobody is asked, since a probe only tries whether a check can fail before
 * any work and is no reason to stop for a person. A command runs only when the run's approvals
 * allow it without a question (the allow-list, `--approve commands`, "Always for this
 * run") and no person denied it before; the others are not run, so their criteria are not probed.
 */
export async function approveProbeCommands(commands: readonly string[], deps: { approvals: Pick<ApprovalPolicy, 'allowsWithoutAsking'>; workspace: string; env: NodeJS.ProcessEnv }): Promise<CommandApproval> {
  let remembered: Map<string, DeniedCommand>;
  try {
    remembered = await deniedCommands(deps.workspace, deps.env);
  } catch (error) {
    return { approved: false, reason: `not probed: ${(error as Error).message}` };
  }
  const denied = new Map(commands.flatMap((c) => (denialOf(remembered, c) ? [[c, { always: denialOf(remembered, c)!.always, reason: COMMAND_REASONS.notProbed }] as const] : [])));
  const decisions = decideCommands(commands, { asker: 'probe', denied, allowList: { allows: (c) => deps.approvals.allowsWithoutAsking(c) } });
  const only = withVerdict(decisions, 'run');
  const reason = COMMAND_REASONS.notProbed;
  return only.length > 0 ? { approved: true, only, reason } : { approved: false, reason };
}
