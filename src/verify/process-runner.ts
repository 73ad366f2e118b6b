import type { RunCommandOptions, RunCommandResult } from './run-command';

/**
 * What starts a verification's processes: its commands and its ripgrep searches. By default
 * this process does (src/verify/run-command.ts, src/verify/search-ripgrep.ts); a long-lived one
 * hands them to a small process of its own (src/verify/process-host.ts), because every fork
 * costs the forking process's main thread time in proportion to its memory.
 */
export interface ProcessRunner {
  runCommand(options: RunCommandOptions): Promise<RunCommandResult>;
  runRipgrep(options: RipgrepRunOptions): Promise<RipgrepRun>;
}

/** One ripgrep process as it ran: what it printed, reduced to counts and first lines per file. */
export type RipgrepRun =
  | { kind: 'closed'; code: number | null; perFile: [file: string, count: number, lines: number[]][]; stderr: string }
  | { kind: 'spawn-error'; message: string }
  | { kind: 'timeout' }
  | { kind: 'cancelled' };

/** What starts ripgrep: its arguments and folder, how long it may take, the line numbers kept per file. */
export interface RipgrepRunOptions {
  rg: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  signal?: AbortSignal;
  keep: number;
}
