import * as path from 'node:path';
import { allowProposedCommand, proposedCommands, removePendingProposal } from '../../app/proposals';
import { acceptProposal, previewPending } from '../../app/proposals-accept';
import { openControllingTerminal, type TerminalOpen, type TerminalPort } from '../shared/terminal';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { CRITERIA_PENDING_USAGE } from '../shared/usage';


const CRITERIA_PENDING = defineCommand({ name: 'ideal-state criteria pending', usage: CRITERIA_PENDING_USAGE, options: { workspace: { type: 'string' } }, positionals: false });

export async function criteriaPendingCommand(argv: string[], io: CliIo, open: () => TerminalOpen = openControllingTerminal): Promise<number> {
  const parsed = CRITERIA_PENDING.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
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

async function review(workspace: string, terminal: TerminalPort, io: CliIo): Promise<number> {
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
