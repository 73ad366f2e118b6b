import type { RunCommandOptions, RunCommandResult } from './run-command';
import type { RipgrepRun, RipgrepRunOptions } from './search-ripgrep';

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
