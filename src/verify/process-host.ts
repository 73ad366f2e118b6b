import { fork, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import type { ProcessRunner } from './process-runner';
import type { HostReply, HostRequest } from './process-host-protocol';
import { runCommand, type RunCommandOptions, type RunCommandResult } from './run-command';
import { runRipgrep, type RipgrepRun, type RipgrepRunOptions } from './search-ripgrep';

interface Pending {
  /** The command's process (group) once the host started it: killed if the host dies before it answers. */
  pid?: number;
  told?: (pid: number) => void;
  settle: (value: RunCommandResult | RipgrepRun) => void;
  /** The same request in this process, when the host is gone before it answered. */
  again: () => Promise<RunCommandResult | RipgrepRun>;
}

/**
 * A long-lived process's verifications start their commands and ripgrep from a small process
 * of their own (dist/process-host.cjs, src/verify/process-host-main.ts), not from its main
 * thread. A fork copies the forking process's page tables: on Node 20 about 0.03 ms of its main
 * thread per MB it holds, some 4 ms per check for the MCP server against about 1.4 ms for the
 * host (bench/gate.mjs). Each answer is the value the function returns in this process; cancel
 * goes over as a message. If the host cannot start, or ends, its requests run here again (a
 * command the host had started is killed first, its process id having come back before its
 * answer), and so does everything after.
 */
export class ProcessHost implements ProcessRunner {
  private child: ChildProcess | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  /** The host from `entry` (dist/process-host.cjs); undefined when the file is not there (a test bundle, a source run). */
  static start(entry: string, log: (s: string) => void): ProcessHost | undefined {
    if (!fs.existsSync(entry)) return undefined;
    try {
      return new ProcessHost(entry, log);
    } catch (error) {
      log(`ideal-state: the process host did not start (${(error as Error).message}); checks run from this process`);
      return undefined;
    }
  }

  private constructor(entry: string, private readonly log: (s: string) => void) {
    // Its stdout is not the MCP protocol's; its stderr is the server's log.
    const child = fork(entry, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], serialization: 'json' });
    this.child = child;
    child.on('message', (message: HostReply) => {
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      if ('started' in message) {
        waiting.pid = message.started;
        waiting.told?.(message.started);
        return;
      }
      this.pending.delete(message.id);
      this.hold();
      if ('result' in message) waiting.settle(message.result);
      else void waiting.again().then(waiting.settle);
    });
    child.on('error', (error) => this.lost(`the process host failed: ${error.message}`));
    child.on('exit', (code, signal) => this.lost(`the process host ended (${signal ?? `exit ${code}`})`));
    this.hold();
  }

  /** The host's process id; undefined once it is gone. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
    const { signal, onSpawn, ...rest } = options;
    return this.request({ op: 'command', options: rest }, signal, () => runCommand(options), onSpawn) as Promise<RunCommandResult>;
  }

  runRipgrep(options: RipgrepRunOptions): Promise<RipgrepRun> {
    const { signal, ...rest } = options;
    return this.request({ op: 'ripgrep', options: rest }, signal, () => runRipgrep(options)) as Promise<RipgrepRun>;
  }

  /** Ends the host; what it still runs is killed (it kills its commands' process groups when its parent lets go). */
  dispose(): void {
    const child = this.child;
    this.child = undefined;
    if (child?.connected) child.disconnect();
  }

  private request(message: Omit<HostRequest & { op: 'command' | 'ripgrep' }, 'id'>, signal: AbortSignal | undefined, here: () => Promise<RunCommandResult | RipgrepRun>, told?: (pid: number) => void): Promise<RunCommandResult | RipgrepRun> {
    const child = this.child;
    if (!child?.connected || signal?.aborted) return here();
    const id = this.next++;
    return new Promise((resolve) => {
      const onAbort = () => {
        try {
          if (this.child?.connected) this.child.send({ id, op: 'cancel' } satisfies HostRequest);
        } catch {
          // The host is going: its exit runs the request here again, already cancelled.
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        settle: (value) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(value);
        },
        again: here,
        ...(told ? { told } : {}),
      });
      this.hold();
      try {
        child.send({ id, ...message } as HostRequest, (error) => {
          if (error) this.lost(`the process host took no request: ${error.message}`);
        });
      } catch (error) {
        this.lost(`the process host took no request: ${(error as Error).message}`);
      }
    });
  }

  /** The host keeps this process alive only while it answers for it. */
  private hold(): void {
    const child = this.child;
    if (!child) return;
    const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (this.pending.size > 0) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }

  private lost(why: string): void {
    if (!this.child && this.pending.size === 0) return;
    const child = this.child;
    this.child = undefined;
    if (child) this.log(`ideal-state: ${why}; checks run from this process`);
    const waiting = [...this.pending.values()];
    this.pending.clear();
    for (const w of waiting) {
      // What the host had started is not left running beside the same command run here.
      if (w.pid !== undefined) killGroup(w.pid);
      void w.again().then(w.settle);
    }
  }
}

function killGroup(pid: number): void {
  try {
    if (process.platform === 'win32') process.kill(pid, 'SIGKILL');
    else process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
