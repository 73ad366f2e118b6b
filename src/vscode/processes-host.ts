import * as path from 'node:path';
import type * as vscode from 'vscode';
import type { Logger } from '../model/log';
import type { ProcessRunner } from '../verify/process-runner';
import type { RunCommandOptions, RunCommandResult } from '../verify/run-command';
import type { RipgrepRun, RipgrepRunOptions } from '../verify/search-ripgrep';
import { engine } from './engine';

/**
 * Where this window's checks start their processes: a criterion's commands and
 * ripgrep, and a run's agent commands, start from a small process of their own
 * (dist/process-host.cjs, as the MCP server's do), not from the extension host. A fork copies
 * the forking process's page tables and waits until the child has started its program: the
 * extension host, which every extension in the window shares, holds hundreds of MB, so each
 * check would stall it, and every other extension with it.
 *
 * The host starts at the window's first process, not at activation, and ends with the window.
 * A host that ended (killed, crashed) is started again at the next process, up to three times
 * in a window; while there is none, the processes start from the extension host as before
 * (src/verify/process-host.ts runs each request here again).
 */
export class ProcessesHost implements ProcessRunner, vscode.Disposable {
  private host: (ProcessRunner & { dispose(): void; readonly pid: number | undefined }) | undefined;
  private started = false;
  private restarts = 0;

  constructor(
    private readonly extensionPath: string,
    private readonly log: Logger,
  ) {}

  runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
    const host = this.start();
    return host ? host.runCommand(options) : engine().runCommand(options);
  }

  runRipgrep(options: RipgrepRunOptions): Promise<RipgrepRun> {
    const host = this.start();
    return host ? host.runRipgrep(options) : engine().runRipgrep(options);
  }

  dispose(): void {
    this.host?.dispose();
    this.host = undefined;
  }

  private start(): ProcessesHost['host'] {
    if (this.host && this.host.pid === undefined && this.restarts < MAX_RESTARTS) {
      this.restarts++;
      this.host = undefined;
      this.started = false;
      this.log.warn(`the process host ended; starting another (${this.restarts} of ${MAX_RESTARTS} in this window)`);
    }
    if (!this.started) {
      this.started = true;
      this.host = engine().ProcessHost.start(path.join(this.extensionPath, 'dist', 'process-host.cjs'), (s) => this.log.warn(s));
      if (this.host) this.log.info(`checks start their processes from process ${this.host.pid ?? '?'} (dist/process-host.cjs)`);
    }
    return this.host;
  }
}

/** Hosts started again in one window after the first ended: one that keeps ending is not forked at every check. */
const MAX_RESTARTS = 3;
