import * as fs from 'node:fs';

/**
 * The controlling terminal, for what only a person may do (lock and approve criteria). Not
 * standard input: an agent's shell tool can pipe "y" into any command, but it has no
 * controlling terminal, so opening `/dev/tty` fails for it (ENXIO). A program that gives itself
 * a pseudo-terminal (`script`, `expect`) can still answer: this stops an agent's ordinary
 * shell, not a determined forger (docs/agents.md says so; CI with --criteria-from is the
 * boundary).
 */
export interface TerminalPort {
  /** Writes the question and reads one line of answer. */
  ask(question: string): string;
  write(text: string): void;
  close(): void;
}

export type TerminalOpen = { ok: true; terminal: TerminalPort } | { ok: false; reason: string };

export function openControllingTerminal(platform = process.platform): TerminalOpen {
  if (platform === 'win32') return { ok: false, reason: 'asking on the console is not supported on Windows; use "Ideal State: Lock Criteria" in the editor' };
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'r+');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, reason: code === 'ENXIO' || code === 'ENOENT' ? 'there is no controlling terminal' : `the terminal cannot be opened (${code ?? (error as Error).message})` };
  }
  return {
    ok: true,
    terminal: {
      write: (text) => void fs.writeSync(fd, text),
      ask(question) {
        fs.writeSync(fd, question);
        const bytes: number[] = [];
        const one = Buffer.alloc(1);
        // One byte at a time up to the line's end: what follows on the terminal is not ours to read.
        while (bytes.length < 1024) {
          const n = fs.readSync(fd, one, 0, 1, null);
          if (n === 0 || one[0] === 0x0a) break;
          bytes.push(one[0]!);
        }
        return Buffer.from(bytes).toString('utf8').replace(/\r$/, '');
      },
      close: () => fs.closeSync(fd),
    },
  };
}
