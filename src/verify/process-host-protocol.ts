import type { RunCommandOptions, RunCommandResult } from './run-command';
import type { RipgrepRun, RipgrepRunOptions } from './search-ripgrep';

/** A request on the process host's IPC channel (src/verify/process-host.ts): options without their signal; cancel stands for it. */
export type HostRequest =
  | { id: number; op: 'command'; options: Omit<RunCommandOptions, 'signal' | 'onSpawn'> }
  | { id: number; op: 'ripgrep'; options: Omit<RipgrepRunOptions, 'signal'> }
  | { id: number; op: 'cancel' };

/** The answer to one request: what the function returned, or why it threw; before it, the command's process id once it started. */
export type HostReply = { id: number; result: RunCommandResult | RipgrepRun } | { id: number; error: string } | { id: number; started: number };

/** The argument that makes the process host start itself again, detached, and end (src/verify/process-host-main.ts). */
export const DETACH_ARG = '--detach';

/** Where the host finds NODE_EXTRA_CA_CERTS, which it was started without (process-host.ts, hostEnvironment). */
export const HOST_EXTRA_CA = 'IDEAL_STATE_HOST_EXTRA_CA_CERTS';
