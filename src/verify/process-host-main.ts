import { runCommand, type RunCommandOptions } from './run-command';
import { runRipgrep, type RipgrepRunOptions } from './search-ripgrep';
import type { HostReply, HostRequest } from './process-host-protocol';

/**
 * dist/process-host.cjs: the small process a long-lived Ideal State process (the MCP server)
 * starts its verification's processes from (src/verify/process-host.ts). It holds only this
 * code, so each fork copies a small process, and the server's main thread never waits on one.
 * It takes requests on its IPC channel and answers each with the same value the function would
 * have returned in the server; cancel aborts one. When its parent goes, it kills what it runs and
 * ends.
 */
const running = new Map<number, AbortController>();

function reply(message: HostReply): void {
  if (process.connected) process.send!(message);
}

process.on('message', (message: HostRequest) => {
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
});

process.on('disconnect', () => {
  for (const controller of running.values()) controller.abort();
  // The aborted commands' process groups are killed as they settle; then nothing holds the loop.
  setTimeout(() => process.exit(0), 3000).unref();
});
