import { defaultCliStoreFile } from '../store/store-paths';

/**
 * The MCP server leaves each verification as a pending record beside the store (as the gate
 * does), so a call's answer never waits for SQLite's open, commit and checkpoint; the records
 * are folded into the store by its next writable open. A long-lived server is that open itself
 * once the agent pauses: `idleMs` after the last verification, if no other call came since, it
 * opens the store (which folds every pending record, oldest first), and closes it. A store
 * another process writes opens read-only and folds nothing: that writer's next open does.
 */
export class IdleFolder {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly workspace: string,
    private readonly store: string | false | undefined,
    private readonly log: (s: string) => void,
    private readonly idleMs = 1500,
  ) {}

  /** A verification left a record: fold once the server has been idle for idleMs. */
  schedule(): void {
    if (this.store === false) return;
    this.cancel();
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.running = this.fold().finally(() => (this.running = undefined));
    }, this.idleMs);
    // A server whose client went away is not kept alive for this.
    this.timer.unref();
  }

  /** A call started: it has the process now; the fold waits for the next pause. */
  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Waits for a fold under way (tests; the server's close). */
  async settled(): Promise<void> {
    await this.running;
  }

  private async fold(): Promise<void> {
    const file = this.store === undefined ? defaultCliStoreFile(this.workspace) : (this.store as string);
    try {
      const { Store } = await import('../store/store.js');
      const store = await Store.open({ file });
      try {
        for (const w of store.warnings) this.log(`ideal-state mcp: warning: ${w.message}`);
      } finally {
        store.close();
      }
    } catch (error) {
      this.log(`ideal-state mcp: the pending verification reports were not folded into ${file}: ${(error as Error).message}; the store's next open folds them`);
    }
  }
}
