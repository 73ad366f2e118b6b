import type { CliIo } from '../shared/io';

/** A subcommand as the process runs it: its arguments and the terminal, its exit code. */
export type Command = (argv: string[], io: CliIo) => Promise<number>;

/**
 * The `ideal-state` process around a command (the whole command line, dist/cli.mjs, or the lean
 * gate and verify, dist/cli-lean.cjs): wires the terminal and Ctrl+C, and sets the exit code.
 */
export function startProcess(command: Command, argv: string[]): void {
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  // Ctrl+C cancels a verification: its commands are killed, nothing is reported as failed.
  const interrupt = new AbortController();
  if (argv[0] === 'verify' || argv[0] === 'gate' || argv[0] === 'loop') process.once('SIGINT', () => interrupt.abort());
  const ask = process.stdin.isTTY && process.stderr.isTTY ? (question: string) => askOnTerminal(question) : undefined;
  command(argv, { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), signal: interrupt.signal, ...(ask ? { ask } : {}) }).then(
    (code) => {
      process.exitCode = code;
      exitWithoutTeardown();
    },
    (error: unknown) => {
      process.stderr.write(`ideal-state: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

/**
 * Once the command has answered and nothing is left to run (Node's 'exit' event), the process
 * ends there: Node would otherwise free its environment and V8's heap first, some 5 ms that no
 * one waits for. Registered after every other exit listener (the code cache's is written first).
 */
function exitWithoutTeardown(): void {
  process.once('exit', () => process.exit());
}

async function askOnTerminal(question: string): Promise<string> {
  const readline = await import('node:readline/promises');
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
