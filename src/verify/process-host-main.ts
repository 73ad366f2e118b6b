import { spawn } from 'node:child_process';
import { Socket } from 'node:net';
import { runCommand, type RunCommandOptions } from './run-command';
import { runRipgrep, type RipgrepRunOptions } from './search-ripgrep';
import { DETACH_ARG, HOST_EXTRA_CA, type HostReply, type HostRequest } from './process-host-protocol';

/**
 * dist/process-host.cjs: the small process a long-lived Ideal State process (the MCP server)
 * starts its verification's processes from (src/verify/process-host.ts). It holds only this
 * code, so each fork copies a small process, and the server's main thread never waits on one.
 * It takes requests on its IPC channel and answers each with the same value the function would
 * have returned in the server; cancel aborts one. When its parent goes, it kills what it runs and
 * ends.
 *
 * Started with `--detach` (the stop gate), it starts itself again, detached, and ends: the copy,
 * left without a parent, is adopted by the system, so no check finds the gate among its
 * ancestors; it then speaks one JSON line per message on the socket it was given as its file
 * descriptor 3 and says `ready` once it runs; the gate sends nothing before its starter has ended. Its command line is the one the MCP server's host has.
 */
// Started without NODE_EXTRA_CA_CERTS (its parse is a start's cost, and the host connects nowhere): put back for the checks.
if (process.env[HOST_EXTRA_CA] !== undefined) {
  process.env.NODE_EXTRA_CA_CERTS = process.env[HOST_EXTRA_CA];
  delete process.env[HOST_EXTRA_CA];
}
const running = new Map<number, AbortController>();

if (process.argv[2] === DETACH_ARG) {
  const child = spawn(process.execPath, [process.argv[1]!], { stdio: ['ignore', 'ignore', 'inherit', 3], detached: true, windowsHide: true });
  child.on('error', () => process.exit(1));
  child.unref();
  child.on('spawn', () => process.exit(0));
} else if (process.send) {
  process.on('message', (message: HostRequest) => take(message, (m) => process.connected && process.send!(m)));
  process.on('disconnect', parentGone);
} else {
  const socket = new Socket({ fd: 3, readable: true, writable: true });
  const reply = (message: HostReply | { ready: number }) => {
    socket.write(`${JSON.stringify(message)}\n`);
  };
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      try {
        take(JSON.parse(line) as HostRequest, reply);
      } catch {
        // Not a request: the gate writes only requests.
      }
    }
  });
  socket.on('end', parentGone);
  socket.on('error', parentGone);
  reply({ ready: process.pid });
}

function take(message: HostRequest, reply: (message: HostReply) => void): void {
  if (message.op === 'cancel') {
    running.get(message.id)?.abort();
    return;
  }
  const controller = new AbortController();
  running.set(message.id, controller);
  const work = message.op === 'command' ? runCommand({ ...(message.options as RunCommandOptions), signal: controller.signal, onSpawn: (pid) => reply({ id: message.id, started: pid }) }) : runRipgrep({ ...(message.options as RipgrepRunOptions), signal: controller.signal });
  work.then(
    (result) => reply({ id: message.id, result }),
    (error: unknown) => reply({ id: message.id, error: error instanceof Error ? error.message : String(error) }),
  ).finally(() => running.delete(message.id));
}

function parentGone(): void {
  for (const controller of running.values()) controller.abort();
  // The aborted commands' process groups are killed as they settle; then nothing holds the loop.
  setTimeout(() => process.exit(0), 3000).unref();
}
