import { z } from 'zod';
import { coveringAnswer, CriteriaAnswer, ProposedCriterion, ToolVerifyAnswer, verifyAnswer } from '../app/done-gate';
import { addPendingProposal, recordProposedCommands } from '../app/proposals';
import { MAX_PROPOSED_CRITERIA, proposeCriteria, type CriteriaProposal } from '../app/propose-criteria';
import { readPrdFile } from '../app/read-prd-file';
import { freezeForVerify } from '../app/gate/freeze-verify';
import { verifyPrdFile, writeAtomically } from '../app/verify-prd-file';
import { checkPrd, formatDiagnostic } from '../prd';
import { VERIFY_COMMANDS_FILE } from '../verify/verify-commands-file';
import { criteriaRows } from './criteria';
import type { IdleFolder } from './fold-idle';
import type { ProcessRunner } from '../verify/process-runner';
import { BadArgument, resolvePrd, ToolRefusal, type NamedPrd } from './workspace';

/** What every tool runs with: one workspace, one store. */
export interface ToolContext {
  workspace: string;
  /** The store file; undefined: the workspace's default; false: none. */
  store: string | false | undefined;
  /** Server log (stderr: stdout is the protocol). */
  log: (s: string) => void;
  /** Folds the verifications left as pending records into the store when the server is idle (fold-idle.ts). */
  folder?: IdleFolder;
  /** Starts the checks' commands and ripgrep from a small process of the server's (src/verify/process-host.ts); absent: the server itself. */
  processes?: ProcessRunner;
}

/** What a tool call may use of its MCP session: the client's name, a person to ask, progress. */
export interface CallSession {
  signal?: AbortSignal;
  client?: string;
  /** Asks the person through the client (MCP elicitation); absent when the client cannot. */
  ask?: (message: string, commands: readonly string[]) => Promise<'accept' | 'decline' | 'cancel'>;
  progress?: (done: number, total: number, message: string) => void;
}

const prd = z.string().max(4096).optional().describe("The PRD, workspace-relative (e.g. .ideal-state/prds/PRD-….md); default: the PRD the done gate holds the agent to (the newest PRD with criteria in the PRD folder)");

export const CriteriaInput = z.object({ prd });
export const VerifyInput = z.object({
  prd,
  criteria: z.array(z.string().max(200)).max(1000).optional().describe('Criterion ids to verify (default: all). With some ids, allCriticalPass is null (partial: true) unless every CRITICAL criterion is among them'),
  timeoutSeconds: z.number().positive().max(3600).optional().describe('Per criterion (default 120)'),
});
export const ProposeInput = z.object({
  prd,
  criteria: z.array(ProposedCriterion.extend({ text: ProposedCriterion.shape.text.max(500), verify: ProposedCriterion.shape.verify.unwrap().max(1000).optional() })).min(1).max(MAX_PROPOSED_CRITERIA),
  confirm: z.boolean().optional().describe('true: ask the person to accept these criteria (through this client when it can ask, else as a proposal waiting for them); without it nothing is asked or written, the answer is the preview'),
});

/** ideal-state_verify's answer: allCriticalPass covers every CRITICAL criterion, or is null when only some were verified. */
export const McpVerifyAnswer = ToolVerifyAnswer;
export type McpVerifyAnswer = ToolVerifyAnswer;

export const ProposeAnswer = z.object({
  prd: z.string(),
  written: z.boolean(),
  /** 'preview': nothing asked; 'accepted' / 'declined': the person answered through the client; 'pending': waits for a person on a terminal. */
  status: z.enum(['preview', 'accepted', 'declined', 'pending']),
  criteriaVersion: z.number().int(),
  added: z.array(z.string()),
  /** Exactly the lines that are (or would be) written. */
  preview: z.array(z.string()),
  /** Commands the new criteria would run: none runs until a person allows it on a terminal. */
  commandsNeedingPerson: z.array(z.string()),
  pendingId: z.string().optional(),
  note: z.string(),
});
export type ProposeAnswer = z.infer<typeof ProposeAnswer>;

export { CriteriaAnswer };

export async function criteriaTool(ctx: ToolContext, input: z.infer<typeof CriteriaInput>): Promise<CriteriaAnswer> {
  // Its own open of the store folds the pending reports: a fold under way ends first, one not yet begun is not needed.
  ctx.folder?.cancel();
  await ctx.folder?.settled();
  const named = await resolvePrd(ctx.workspace, input.prd);
  const text = await readText(named);
  const { document, diagnostics } = checkPrd(text);
  return {
    prd: named.relative,
    criteriaVersion: document.meta.criteriaVersion ?? 1,
    criteria: await criteriaRows(ctx.workspace, named.relative, document, ctx.store),
    problems: diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(named.relative, d)),
    ...(named.held ? { held: named.held } : {}),
  };
}

export async function verifyTool(ctx: ToolContext, input: z.infer<typeof VerifyInput>, session: CallSession = {}): Promise<McpVerifyAnswer> {
  ctx.folder?.cancel();
  const named = await resolvePrd(ctx.workspace, input.prd);
  const only = input.criteria && input.criteria.length > 0 ? input.criteria : undefined;
  // In a snapshot, from a detached process host, as the stop gate and `ideal-state verify` run
  // their checks (freeze-verify.ts): a check cannot tell this verification from the gate's.
  const frozen = await freezeForVerify(ctx.workspace, ctx.log);
  if (frozen?.note) ctx.log(frozen.note);
  const processes = frozen?.processes ?? ctx.processes;
  const result = await verifyPrdFile({
    ...(frozen ? { frozen: { root: frozen.root } } : {}),
    file: named.file,
    workspace: ctx.workspace,
    ...(only ? { select: { only } } : {}),
    // No terminal: only the commands the workspace's committed allow-list names run.
    commands: {},
    checks: { timeoutSeconds: input.timeoutSeconds ?? 120, ...(session.signal ? { signal: session.signal } : {}), ...(processes ? { processes } : {}) },
    ...(session.progress ? { progress: { onResult: (done: number, total: number, id: string) => session.progress!(done, total, `${id} verified (${done} of ${total})`) } } : {}),
    // The answer does not wait for SQLite: the report is left beside the store, folded in by its
    // next writable open (this server's own when it is idle, the criteria tool's, any command's).
    report: { store: ctx.store, later: true },
    warn: ctx.log,
  }).finally(() => {
    ctx.folder?.schedule();
    return frozen?.dispose();
  });
  if (result.kind === 'bad-input') throw new ToolRefusal([`${named.relative} cannot be verified: ${result.summary.split(named.file).join(named.relative)}`, ...result.problems.map((d) => formatDiagnostic(named.relative, d))].join('\n'));
  if (result.kind === 'refused' && only && / has no criterion /.test(result.message)) throw new BadArgument(`criteria: ${result.message.split(named.file).join(named.relative)}`);
  if (result.kind !== 'verified') throw new ToolRefusal(result.message.split(named.file).join(named.relative));
  // The file's own ids (an ISA's C1, ISC-2.1) with their priorities, as the editor's tool and the gate answer.
  const answer = verifyAnswer(named.relative, result.prd, result.set, { allowHint: `the user allows commands in ${VERIFY_COMMANDS_FILE}` });
  // Some ids: the verdict covers every CRITICAL criterion of the file, or it is no verdict (one passing id never says the work is done).
  return coveringAnswer(answer, result.prd, only);
}

/**
 * Adds criteria as a new criteria version only when a person accepts them: through the
 * client's own dialog (MCP elicitation) where the client can ask, else as a pending proposal
 * that the person accepts with `ideal-state criteria pending` on a terminal. A client's word
 * (`confirm: true`) is never taken for the person's. Commands the new criteria would run are
 * recorded as needing a person's approval, whatever the allow-list's patterns say.
 */
export async function proposeTool(ctx: ToolContext, input: z.infer<typeof ProposeInput>, session: CallSession = {}): Promise<ProposeAnswer> {
  const named = await resolvePrd(ctx.workspace, input.prd);
  const text = await readText(named);
  const through = `ideal-state mcp${session.client ? ` (client ${JSON.stringify(session.client.slice(0, 60))})` : ''}`;
  const proposal = proposeCriteria(text, named.relative, input.criteria, { today: today(), through, accepted: "accepted by a person in the client's dialog (MCP elicitation)" });
  if (!proposal.ok) throw new ToolRefusal(proposal.message);
  const commands = [...new Set(proposal.commands.map((c) => c.command))];
  const base = { prd: named.relative, added: proposal.added, preview: proposal.lines, commandsNeedingPerson: commands };
  const commandNote = commands.length > 0 ? ` The command${commands.length === 1 ? '' : 's'} ${commands.map((c) => `\`${c}\``).join(', ')} will not run until a person allows ${commands.length === 1 ? 'it' : 'them'} with \`ideal-state criteria pending\` on a terminal.` : '';
  if (input.confirm !== true) {
    return { ...base, written: false, status: 'preview', criteriaVersion: proposal.previousVersion, note: 'NOT written, nothing asked. These are exactly the lines that would be written. Call again with confirm: true to ask the user to accept them.' };
  }
  if (session.ask) {
    const answer = await session.ask(askMessage(named.relative, proposal), commands);
    if (answer !== 'accept') return { ...base, written: false, status: 'declined', criteriaVersion: proposal.previousVersion, note: `NOT written: the user ${answer === 'decline' ? 'declined' : 'dismissed'} these criteria.` };
    const current = await readText(named);
    if (current !== text) throw new ToolRefusal(`${named.relative} changed while the user was asked; nothing written, propose again`);
    await recordProposedCommands(ctx.workspace, proposal.commands.map((c) => ({ command: c.command, prd: named.relative, criterion: c.id, addedAt: new Date().toISOString() })));
    await writeAtomically(named.file, proposal.after);
    return { ...base, written: true, status: 'accepted', criteriaVersion: proposal.version, note: `The user accepted them: added as criteria version ${proposal.version}; verify them with this server's verify tool.${commandNote}` };
  }
  const pending = await addPendingProposal(ctx.workspace, { prd: named.relative, criteria: input.criteria, proposedAt: new Date().toISOString(), ...(session.client ? { client: session.client.slice(0, 60) } : {}) });
  return {
    ...base,
    written: false,
    status: 'pending',
    criteriaVersion: proposal.previousVersion,
    pendingId: pending.id,
    note: `NOT written: this client cannot ask the user, so the proposal waits for them. Tell the user to run \`ideal-state criteria pending\` in their terminal to see and accept it; until then these criteria are not part of the PRD.${commandNote}`,
  };
}

function askMessage(relative: string, proposal: Extract<CriteriaProposal, { ok: true }>): string {
  return [`An agent proposes adding ${proposal.added.length} criteri${proposal.added.length === 1 ? 'on' : 'a'} to ${relative} (criteria version ${proposal.version}). Exactly these lines would be written:`, '', ...proposal.lines, '', 'Accept adds them; decline writes nothing.'].join('\n');
}

async function readText(named: NamedPrd): Promise<string> {
  const read = await readPrdFile(named.file);
  if (!read.ok) throw new ToolRefusal(read.diagnostic ? formatDiagnostic(named.relative, read.diagnostic) : `cannot read ${named.relative}: ${read.reason}`);
  return read.text;
}

function today(): string {
  return new Date().toISOString().slice(0, 10);
}
