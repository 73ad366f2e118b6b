import type { ProcessHost } from '../../verify/process-host';
import type { ProcessRunner } from '../../verify/process-runner';
import { runCommand } from '../../verify/run-command';
import { runRipgrep } from '../../verify/search-ripgrep';

/**
 * The checks' process host while it is still starting: starting it (a double fork and a Node
 * start, some 100 ms) overlaps the snapshot's copy, the PRD's reading, the lock's comparison and
 * the checks that start no process (Read, Grep with the built-in search); the first command
 * waits for it. A host that did not start runs its requests in this process, as a host that ends
 * does (process-host.ts).
 */
export class HostWhenReady implements ProcessRunner {
  constructor(private readonly starting: Promise<ProcessHost | undefined>) {}

  async runCommand(options: Parameters<ProcessRunner['runCommand']>[0]): ReturnType<ProcessRunner['runCommand']> {
    const host = await this.starting;
    return host ? host.runCommand(options) : runCommand(options);
  }

  async runRipgrep(options: Parameters<ProcessRunner['runRipgrep']>[0]): ReturnType<ProcessRunner['runRipgrep']> {
    const host = await this.starting;
    return host ? host.runRipgrep(options) : runRipgrep(options);
  }

  /** Ends the host, now or as soon as it has started. */
  dispose(): void {
    void this.starting.then((host) => host?.dispose());
  }
}
