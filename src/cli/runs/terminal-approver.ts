import * as readline from 'node:readline/promises';
import type { ApprovalAnswer, Approver } from '../../agent/approvals';
import type { CliIo } from '../shared/io';

/** Asks on the terminal: [y]es, [n]o, [a]lways for this run (a configuration change: yes or no, each one). */
export function terminalApprover(io: Pick<CliIo, 'err'>): Approver {
  return {
    async ask(request, signal): Promise<ApprovalAnswer> {
      io.err(`\n${request.title}\n${request.detail}`);
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
      try {
        const config = request.kind === 'config';
        const command = request.kind === 'command' && request.remembersDenial === true;
        const answer = (await rl.question(config ? 'Approve this configuration change? [y]es / [n]o (asked for each one): ' : `Approve? [y]es / [n]o / [a]lways for this run${command ? ' / ne[v]er (deny always)' : ''}: `, { signal })).trim().toLowerCase();
        if (config) return answer.startsWith('y') ? 'approve' : 'deny';
        // "Deny always": a verification command is remembered as denied for this workspace and never asked about again (offered only where the denial is remembered).
        if (command && (answer === 'v' || answer === 'never')) return 'never';
        return answer.startsWith('a') ? 'always' : answer.startsWith('y') ? 'approve' : 'deny';
      } finally {
        rl.close();
      }
    },
  };
}
