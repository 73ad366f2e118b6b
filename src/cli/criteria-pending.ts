import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { allowProposedCommand, proposedCommands, removePendingProposal } from '../app/proposals';
import { acceptProposal, previewPending } from '../app/proposals-accept';
import { openControllingTerminal, type TerminalOpen, type TerminalPort } from './terminal';
import type { VerifyIo } from './verify';

export const CRITERIA_PENDING_USAGE = `Usage: ideal-state criteria pending [--workspace DIR]

Shows each criteria proposal an agent made through the MCP server that waits for a person,
exactly as it would be written, and asks on this terminal whether to add it; then asks about
each command such criteria would run, which never runs until a person allows it here. It asks
on the controlling terminal (/dev/tty) and refuses without one: an agent's shell has none.
`;

export async function criteriaPendingCommand(argv: string[], io: VerifyIo, open: () => TerminalOpen = openControllingTerminal): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: { workspace: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } }));
  } catch (error) {
    io.err(`ideal-state criteria pending: ${(error as Error).message}\n\n${CRITERIA_PENDING_USAGE}`);
    return 2;
  }
  if (values.help) {
    io.out(CRITERIA_PENDING_USAGE);
    return 0;
  }
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const opened = open();
  if (!opened.ok) {
    io.err(`ideal-state criteria pending: a person answers this on a terminal, and this process has none (${opened.reason}). Run it yourself in a terminal; nothing was added or allowed.`);
    return 2;
  }
  const term = opened.terminal;
  try {
    return await review(workspace, term, io);
  } finally {
    term.close();
  }
}

const yes = (answer: string) => /^(y|yes)$/i.test(answer.trim());

async function review(workspace: string, terminal: TerminalPort, io: VerifyIo): Promise<number> {
  const term = { say: (text: string) => terminal.write(`${text}\n`), ask: (question: string) => terminal.ask(question) };
  const previews = await previewPending(workspace, { today: new Date().toISOString().slice(0, 10), accepted: 'accepted by a person on a terminal (ideal-state criteria pending)' });
  let added = 0;
  if (previews.length === 0) term.say('No criteria proposals wait for you.');
  for (const shown of previews) {
    const p = shown.proposal;
    if (!shown.ok) {
      term.say(`${shown.header}\n  ${shown.problem.replace(/\n/g, '\n  ')}`);
      if (yes(term.ask('Drop this proposal? [y/N] '))) await removePendingProposal(workspace, p.id);
      continue;
    }
    // Exactly the lines that are written, each on its own line (criteria version N+1).
    term.say(`${shown.header}\n${shown.lines.map((l) => `  ${l}`).join('\n')}${shown.commands.length > 0 ? `\n  (their commands: ${shown.commands.map((c) => c.command).join(', ')}; asked about next)` : ''}`);
    const answer = term.ask(`Add ${shown.added.length === 1 ? 'it' : `these ${shown.added.length}`} to ${p.prd} as criteria version ${shown.version}? [y]es adds, [d]rop discards the proposal, anything else keeps it waiting: `).trim().toLowerCase();
    if (answer === 'd' || answer === 'drop') {
      await removePendingProposal(workspace, p.id);
      continue;
    }
    if (!yes(answer)) continue;
    const accepted = await acceptProposal(workspace, shown, new Date());
    if (!accepted.ok) {
      term.say(`${accepted.message} Run this again.`);
      continue;
    }
    added += accepted.added.length;
    term.say(`Added ${accepted.added.join(', ')} to ${p.prd}.`);
  }
  for (const c of (await proposedCommands(workspace)).filter((k) => k.allowedAt === undefined)) {
    const answer = term.ask(`${c.criterion} of ${c.prd} (added through an agent's proposal) runs \`${c.command}\`. Allow it to run when criteria are verified without you? [y/N] `);
    if (yes(answer)) {
      await allowProposedCommand(workspace, c.command, new Date());
      term.say(`Allowed \`${c.command}\` (the allow-list in .ideal-state/verify-commands.yaml still decides where there is no terminal).`);
    }
  }
  io.out(`ideal-state criteria pending: ${added} criteri${added === 1 ? 'on' : 'a'} added`);
  return 0;
}
