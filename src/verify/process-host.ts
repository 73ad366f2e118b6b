import { fork, spawn, type ChildProcess } from 'node:child_process';
import type { Duplex, Readable, Writable } from 'node:stream';
import * as fs from 'node:fs';
import type { ProcessRunner } from './process-runner';
import { DETACH_ARG, HOST_EXTRA_CA, type HostReply, type HostRequest } from './process-host-protocol';
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
  private channel: HostChannel | undefined;
  private next = 1;
  private readonly pending = new Map<number, Pending>();

  /** The host from `entry` (dist/process-host.cjs); undefined when the file is not there (a test bundle, a source run). */
  static start(entry: string, log: (s: string) => void): ProcessHost | undefined {
    if (!fs.existsSync(entry)) return undefined;
    try {
      // Its stdout is not the MCP protocol's; its stderr is the server's log.
      const child = fork(entry, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [], serialization: 'json', env: hostEnvironment(process.env) });
      const host = new ProcessHost(ipcChannel(child), log);
      child.on('message', (message: HostReply) => host.reply(message));
      child.on('error', (error) => host.lost(`the process host failed: ${error.message}`));
      child.on('exit', (code, signal) => host.lost(`the process host ended (${signal ?? `exit ${code}`})`));
      return host;
    } catch (error) {
      log(`ideal-state: the process host did not start (${(error as Error).message}); checks run from this process`);
      return undefined;
    }
  }

  /**
   * The host from `entry`, started through a starter that ends at once (a double fork): the host
   * is adopted by the system, so the checks it starts have neither this process nor its command
   * line among their ancestors, and they cannot tell the stop gate from a plain verification. It
   * speaks over a socket (its file descriptor 3). Resolves once the starter has ended and the host is ready;
   * undefined when it cannot start within `waitMs` (the checks then run from this process).
   */
  static startDetached(entry: string, log: (s: string) => void, waitMs = 5000): Promise<ProcessHost | undefined> {
    if (!fs.existsSync(entry)) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      let starter: ChildProcess;
      try {
        // Not its stdin: Node destroys a child's stdin when the child ends, and the starter ends at once.
        // The starter is a shell where there is one (it starts in a millisecond, a Node in tens):
        // it starts the host in the background, with the socket as its descriptor 3, and ends.
        const stdio: ('ignore' | 'inherit' | 'pipe')[] = ['ignore', 'ignore', 'inherit', 'pipe'];
        starter =
          process.platform === 'win32'
            ? spawn(process.execPath, [entry, DETACH_ARG], { stdio, windowsHide: true, env: hostEnvironment(process.env) })
            : spawn('/bin/sh', ['-c', '"$0" "$1" &', process.execPath, entry], { stdio, detached: true, env: hostEnvironment(process.env) });
      } catch (error) {
        log(`ideal-state: the process host did not start (${(error as Error).message}); checks run from this process`);
        resolve(undefined);
        return;
      }
      // One socket both ways: the host's file descriptor 3.
      const socket = starter.stdio[3] as Duplex;
      const stdin: Writable = socket;
      const stdout: Readable = socket;
      let ready: number | undefined;
      let starterEnded = false;
      let settled = false;
      const host = new ProcessHost(lineChannel(stdin, stdout), log);
      const settle = (value: ProcessHost | undefined, why?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (!value) {
          if (why) log(`ideal-state: ${why}; checks run from this process`);
          host.dispose();
        } else host.pidOf = ready;
        resolve(value);
      };
      const timer = setTimeout(() => settle(undefined, `the process host did not start within ${waitMs} ms`), waitMs);
      let buffer = '';
      stdout.setEncoding('utf8');
      stdout.on('data', (chunk: string) => {
        buffer += chunk;
        for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          let message: HostReply | { ready: number };
          try {
            message = JSON.parse(line) as HostReply | { ready: number };
          } catch {
            continue;
          }
          if ('ready' in message) {
            ready = message.ready;
            if (starterEnded) settle(host);
          } else host.reply(message);
        }
      });
      stdout.on('close', () => {
        settle(undefined, 'the process host ended before it was ready');
        host.lost('the process host ended');
      });
      stdin.on('error', (error) => host.lost(`the process host took no request: ${error.message}`));
      starter.on('error', (error) => settle(undefined, `the process host did not start (${error.message})`));
      starter.on('exit', (code) => {
        starterEnded = true;
        if (code !== 0) settle(undefined, `the process host's starter ended with exit ${code}`);
        else if (ready !== undefined) settle(host);
      });
    });
  }

  private pidOf: number | undefined;

  private constructor(channel: HostChannel, private readonly log: (s: string) => void) {
    this.channel = channel;
    this.hold();
  }

  private reply(message: HostReply): void {
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
  }

  /** The host's process id; undefined once it is gone. */
  get pid(): number | undefined {
    return this.channel ? (this.pidOf ?? this.channel.pid) : undefined;
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
    const channel = this.channel;
    this.channel = undefined;
    channel?.close();
  }

  private request(message: Omit<HostRequest & { op: 'command' | 'ripgrep' }, 'id'>, signal: AbortSignal | undefined, here: () => Promise<RunCommandResult | RipgrepRun>, told?: (pid: number) => void): Promise<RunCommandResult | RipgrepRun> {
    const channel = this.channel;
    if (!channel?.connected || signal?.aborted) return here();
    const id = this.next++;
    return new Promise((resolve) => {
      const onAbort = () => {
        try {
          if (this.channel?.connected) this.channel.send({ id, op: 'cancel' } satisfies HostRequest, () => undefined);
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
        channel.send({ id, ...message } as HostRequest, (error) => {
          if (error) this.lost(`the process host took no request: ${error.message}`);
        });
      } catch (error) {
        this.lost(`the process host took no request: ${(error as Error).message}`);
      }
    });
  }

  /** The host keeps this process alive only while it answers for it. */
  private hold(): void {
    this.channel?.hold(this.pending.size > 0);
  }

  private lost(why: string): void {
    if (!this.channel && this.pending.size === 0) return;
    const channel = this.channel;
    this.channel = undefined;
    if (channel) this.log(`ideal-state: ${why}; checks run from this process`);
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

/** How the host is spoken to: its IPC channel (a fork), or one JSON line per message on its pipes (a detached host). */
interface HostChannel {
  readonly connected: boolean;
  readonly pid?: number;
  send(message: HostRequest, done: (error: Error | null) => void): void;
  /** Keeps this process alive while requests wait, and not after. */
  hold(on: boolean): void;
  close(): void;
}

function ipcChannel(child: ChildProcess): HostChannel {
  return {
    get connected() {
      return child.connected;
    },
    get pid() {
      return child.pid;
    },
    send: (message, done) => child.send(message, done),
    hold: (on) => {
      const channel = child.channel as { ref?: () => void; unref?: () => void } | undefined;
      if (on) {
        child.ref();
        channel?.ref?.();
      } else {
        child.unref();
        channel?.unref?.();
      }
    },
    close: () => {
      if (child.connected) child.disconnect();
    },
  };
}

function lineChannel(stdin: Writable, stdout: Readable): HostChannel {
  const handle = (s: unknown) => s as { ref?: () => void; unref?: () => void };
  return {
    get connected() {
      return stdin.writable && !stdin.destroyed;
    },
    send: (message, done) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => done(error ?? null));
    },
    hold: (on) => {
      for (const s of [stdin, stdout]) (on ? handle(s).ref : handle(s).unref)?.call(s);
    },
    // The host takes the end of its stdin as its parent gone: it stops what it runs and ends.
    close: () => {
      stdin.end();
      if ((stdin as unknown) !== stdout) stdout.destroy();
    },
  };
}

/**
 * The host's environment: this process's, but NODE_EXTRA_CA_CERTS under another name. Node reads
 * and parses that bundle of certificates as it starts (tens of milliseconds, more on a busy
 * machine: bench/gate.mjs), and the host makes no connection; it puts the variable back before it
 * starts a check (process-host-main.ts), so the checks' environment is this process's.
 */
export function hostEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: extraCa, [HOST_EXTRA_CA]: _never, ...rest } = env;
  return extraCa === undefined ? rest : { ...rest, [HOST_EXTRA_CA]: extraCa };
}
