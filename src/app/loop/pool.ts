import type { LoopArtifact } from '../../model/loop';
import type { Store } from '../../store/store';

/**
 * A pool of N agents over a queue of artifacts. Each agent claims its next artifact in the
 * store before it works it; an artifact another agent (another pool, another engine) holds
 * is skipped, so no artifact is ever worked twice at once.
 */
export class AgentPool {
  constructor(
    private readonly store: Store,
    private readonly loopId: string,
    private readonly owner: string,
    private readonly size: number,
    private readonly claimTtlMs: number,
    private readonly now: () => Date,
    private readonly iteration: number,
  ) {}

  /** Works every file in `queue` that this pool can claim; stops taking new ones when `stop()` says so. */
  async run(queue: readonly string[], work: (claimed: LoopArtifact, agent: number) => Promise<void>, stop: () => boolean): Promise<void> {
    let next = 0;
    const agent = async (n: number) => {
      while (next < queue.length && !stop()) {
        const file = queue[next++]!;
        const at = this.now();
        const claimed = this.store.loops.claim(this.loopId, file, { owner: `${this.owner}#${n}`, expiresAt: new Date(at.getTime() + this.claimTtlMs).toISOString() }, at, this.iteration);
        if (!claimed) continue;
        await work(claimed, n);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(this.size, queue.length)) }, (_, i) => agent(i + 1)));
  }
}
