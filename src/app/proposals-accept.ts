import { confinePath } from '../verify/confine';
import { pendingProposals, recordProposedCommands, removePendingProposal, type PendingProposal } from './proposals';
import { proposeCriteria } from './propose-criteria';
import { readPrdFile } from './read-prd-file';
import { writeAtomically } from './verify-prd-file';

/**
 * A pending proposal as a person is shown it before accepting: exactly the lines that would be
 * written (criteria version N+1) and the commands they would run, or why it cannot be added as
 * it stands. Shared by `ideal-state criteria pending` (a terminal) and the ISC table (a modal),
 * so both show and write the same thing.
 */
export type ProposalPreview =
  | { ok: true; proposal: PendingProposal; header: string; lines: string[]; added: string[]; version: number; commands: { id: string; command: string }[]; text: string; after: string; file: string }
  | { ok: false; proposal: PendingProposal; header: string; problem: string };

export async function previewProposal(workspace: string, p: PendingProposal, today: string, accepted: string): Promise<ProposalPreview> {
  const header = `Proposal ${p.id} from ${p.client ? `the MCP client "${p.client}"` : 'an MCP client'} at ${p.proposedAt}, for ${p.prd}:`;
  const where = await confinePath(workspace, p.prd);
  if (!where.ok) return { ok: false, proposal: p, header, problem: where.reason };
  if (!where.exists) return { ok: false, proposal: p, header, problem: 'the PRD no longer exists' };
  const read = await readPrdFile(where.absolute);
  if (!read.ok) return { ok: false, proposal: p, header, problem: read.reason };
  const proposal = proposeCriteria(read.text, p.prd, p.criteria, { today, through: `ideal-state mcp${p.client ? ` (client ${JSON.stringify(p.client)})` : ''}`, accepted });
  if (!proposal.ok) return { ok: false, proposal: p, header, problem: `cannot be added as it stands: ${proposal.message}` };
  return { ok: true, proposal: p, header, lines: proposal.lines, added: proposal.added, version: proposal.version, commands: proposal.commands, text: read.text, after: proposal.after, file: where.absolute };
}

/** The previews of the proposals waiting for one PRD (all when `prd` is undefined). */
export async function previewPending(workspace: string, options: { prd?: string; today: string; accepted: string }): Promise<ProposalPreview[]> {
  const all = await pendingProposals(workspace);
  const mine = options.prd === undefined ? all : all.filter((p) => p.prd === options.prd);
  return Promise.all(mine.map((p) => previewProposal(workspace, p, options.today, options.accepted)));
}

export type AcceptResult = { ok: true; added: string[] } | { ok: false; message: string };

/**
 * Writes a previewed proposal as the person saw it: refused when the PRD changed since the
 * preview (nothing written; show it again). The commands the new criteria run are recorded as
 * waiting for a person's yes before they run, and the proposal stops waiting.
 */
export async function acceptProposal(workspace: string, shown: Extract<ProposalPreview, { ok: true }>, now: Date): Promise<AcceptResult> {
  const current = await readPrdFile(shown.file);
  if (!current.ok || current.text !== shown.text) return { ok: false, message: `${shown.proposal.prd} changed meanwhile; nothing written. Look at the proposal again.` };
  await recordProposedCommands(workspace, shown.commands.map((c) => ({ command: c.command, prd: shown.proposal.prd, criterion: c.id, addedAt: now.toISOString() })));
  await writeAtomically(shown.file, shown.after);
  await removePendingProposal(workspace, shown.proposal.id);
  return { ok: true, added: shown.added };
}
