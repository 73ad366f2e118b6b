import type { Logger } from '../model/log';
import type { RunEvent } from '../model';
import type { Clock } from './budget-tracker';
import type { EventDraft } from './context';
import type { RunStorage, StepCommit } from './ports';
import type { AlgorithmState } from '../model/algorithm-state';

/**
 * How the engine writes a run: events wait for the commit that holds them (listeners hear of
 * them only once they are durable), each transition is one commit, and progress inside a node
 * (EXECUTE's claims and finished packets) is committed before the process next waits.
 */
export class RunCommits {
  private pendingEvents: RunEvent[] = [];
  /** Progress waiting for the event loop to be idle; see `commitBeforeWaiting`. */
  private progress: { readonly state: AlgorithmState; readonly cancel: () => void } | undefined;

  constructor(
    private readonly storage: RunStorage,
    private readonly clock: Clock,
    private readonly onEvent?: (event: RunEvent) => void,
    private readonly logger?: Logger,
    private readonly onCommit?: (commit: StepCommit) => void,
  ) {}

  emit(state: AlgorithmState, e: EventDraft): RunEvent {
    const event: RunEvent = { inputTokens: 0, outputTokens: 0, costUsd: 0, ...e, runId: state.run.id, seq: state.eventSeq++, at: this.clock.now().toISOString() };
    this.pendingEvents.push(event);
    return event;
  }

  hasPending(runId: string): boolean {
    return this.pendingEvents.some((e) => e.runId === runId);
  }

  /**
   * Progress committed when the event loop is about to wait, or folded into the next commit
   * (the node's transition) when that comes first. Work that resolves without waiting (a
   * packet's result already in hand) is grouped; a wait for anything outside — a model's
   * reply, a person's approval, a timer, a process — never starts with finished work uncommitted.
   */
  commitBeforeWaiting(state: AlgorithmState): void {
    if (this.progress?.state === state) return;
    // Another run's progress (one engine running two): it goes now rather than wait on this one's.
    if (this.progress) this.commitProgressNow();
    const progress = { state, cancel: whenIdle(() => this.progress === progress && this.commitProgressNow()) };
    this.progress = progress;
  }

  /** One durable commit of the run with every event since the last one; listeners hear of them after. */
  commit(state: AlgorithmState, parts: Omit<StepCommit, 'run' | 'events'>): void {
    // Progress waiting for the loop to be idle belongs to this state: it goes now, in this commit.
    if (this.progress && this.progress.state.run.id === state.run.id) {
      this.progress.cancel();
      this.progress = undefined;
    }
    const events = this.pendingEvents.filter((e) => e.runId === state.run.id && e.seq < state.eventSeq);
    this.pendingEvents = this.pendingEvents.filter((e) => !events.includes(e));
    const commit: StepCommit = { run: state.run, criteria: state.criteria, ...parts, events };
    this.storage.commit(commit);
    // What was just made durable, whole: the run's one writer tells its views from this, not from the store.
    this.onCommit?.(commit);
    for (const e of events) this.onEvent?.(e);
  }

  private commitProgressNow(): void {
    const state = this.progress!.state;
    this.progress!.cancel();
    this.progress = undefined;
    try {
      this.commit(state, { packets: state.packets, candidates: state.candidates });
    } catch (error) {
      // The transition's commit carries the same rows (and fails the run if the store stays broken).
      this.logger?.warn(`${state.run.id}: progress could not be committed yet: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Runs `fn` once the work in hand is done and the event loop would wait (Node's check phase; a zero timer elsewhere). Returns a cancel. */
function whenIdle(fn: () => void): () => void {
  if (typeof setImmediate === 'function') {
    const handle = setImmediate(fn);
    return () => clearImmediate(handle);
  }
  const handle = setTimeout(fn, 0);
  return () => clearTimeout(handle);
}
