import { setFlagsFromString } from 'node:v8';
import { main } from './main';

/**
 * A one-shot command (a stop hook's `gate`, CI's `verify`) compiles the store's SQLite (WASM)
 * with V8's baseline compiler only: the optimizing tier would compile it again on background
 * threads for a process that is gone in a second, which on Node 20 doubled the store's CPU time
 * and added some 30 MB to the peak RSS (bench/gate.mjs). The long-lived `mcp` server keeps it.
 */
const ONE_SHOT = new Set(['gate', 'verify', 'store', 'prd', 'effort', 'isc', 'ratings', 'reflections', 'trust']);
if (ONE_SHOT.has(process.argv[2] ?? '')) setFlagsFromString('--liftoff-only');

/**
 * The `ideal-state` process: the bin (dist/cli.js) starts this module, which reads the
 * arguments, wires the terminal and Ctrl+C, and sets the exit code from `main`.
 */
{
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  // Ctrl+C cancels a verification: its commands are killed, nothing is reported as failed.
  const interrupt = new AbortController();
  if (process.argv[2] === 'verify' || process.argv[2] === 'gate' || process.argv[2] === 'loop') process.once('SIGINT', () => interrupt.abort());
  const ask = process.stdin.isTTY && process.stderr.isTTY ? (question: string) => askOnTerminal(question) : undefined;
  main(process.argv.slice(2), { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), signal: interrupt.signal, ...(ask ? { ask } : {}) }).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`ideal-state: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
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
