import { isBudgetExceeded, isCancellation } from '../model/errors';
import type { Candidate, Packet } from '../model';
import type { NodeContext } from './context';
import { decayedSteps } from './iteration';
import { claimRows, releaseRows } from './isc-manager';
import { NodeBudgetCutError } from './node-budget';
import type { PacketWork } from './ports';
import type { AlgorithmState } from '../model/algorithm-state';
import { specialistView } from './views';

/**
 * EXECUTE: specialists work the packets, at most the level's parallelism at
 * once. Each packet's rows are claimed before work starts and released with a final status
 * after. Claims and finished packets are progress: committed before the process next waits
 * on anything (a model, a person, a command), folded into the transition's commit when no
 * wait comes first (see `NodeContext.commitProgress`). So a crash loses at most the packets
 * in flight and a resume never redoes a finished one.
 */
export async function execute(state: AlgorithmState, ctx: NodeContext): Promise<void> {
  const parallel = Math.max(1, ctx.spec.parallelism);
  const steps = decayedSteps(ctx.capabilities.levels[state.run.effort].agentSteps, state.run.iteration);
  let failure: unknown;
  // A waived criterion is settled by the manager's recorded decision, not by a packet.
  const at = ctx.clock.now().toISOString();
  state.criteria = state.criteria.map((c) => (state.memo.coverage[c.id]?.[0] === 'waived' && c.status === 'PENDING' ? { ...c, status: 'ADJUSTED', updatedAt: at } : c));

  const takeNext = (workerId: string): Packet | undefined => {
    // Past the node's share of the budget no packet starts (NodeDeadline): the safe point.
    if (ctx.timeUp()) return undefined;
    for (const p of state.packets) {
      if (p.status !== 'PLANNED') continue;
      const deps = p.dependsOn.every((d) => state.packets.find((x) => x.id === d)?.status !== 'PLANNED' && state.packets.find((x) => x.id === d)?.status !== 'CLAIMED');
      if (!deps) continue;
      const claimed = claimRows(state.criteria, p.criterionIds, workerId, ctx.clock.now());
      if (!claimed.ok) continue;
      state.criteria = claimed.criteria;
      const at = ctx.clock.now().toISOString();
      const packet: Packet = { ...p, status: 'CLAIMED', claimedBy: workerId, updatedAt: at };
      state.packets = state.packets.map((x) => (x.id === p.id ? packet : x));
      ctx.emit(state, { kind: 'criterion', message: `${workerId} claimed ${p.id} (${p.criterionIds.join(', ')})`, role: 'specialist' });
      ctx.commitProgress(state);
      return packet;
    }
    return undefined;
  };

  const finishPacket = (packet: Packet, workerId: string, work: PacketWork | undefined, error?: string): void => {
    const at = ctx.clock.now().toISOString();
    const ok = work !== undefined && !work.blocked;
    state.criteria = releaseRows(state.criteria, packet.criterionIds, workerId, ok ? 'DONE' : 'BLOCKED', ctx.clock.now());
    state.packets = state.packets.map((x): Packet => (x.id === packet.id ? dropUndefined({ ...x, status: ok ? 'DONE' : 'FAILED', claimedBy: undefined, updatedAt: at }) : x));
    if (work) {
      const candidate: Candidate = {
        id: `cand-${packet.id}-${state.candidates.length + 1}`,
        runId: state.run.id,
        packetId: packet.id,
        iteration: state.run.iteration,
        producedBy: workerId,
        summary: work.summary,
        edits: [...work.edits],
        ...(work.commandOutput !== undefined ? { commandOutput: work.commandOutput } : {}),
        assumptions: [...work.assumptions],
        evidence: [...work.evidence],
        createdAt: at,
      };
      state.candidates = [...state.candidates, candidate];
    }
    if (work?.blocked) {
      // A person said no (or the workspace is untrusted): looping again would ask the same.
      state.memo.stopping = 'BLOCKED';
      state.memo.stopReason = `${packet.id}: ${work.blocked}`;
    }
    const what = error ?? work?.blocked;
    ctx.emit(state, { kind: 'criterion', message: `${packet.id} ${ok ? 'done' : `ended BLOCKED: ${what ?? 'no result'}`} (${packet.criterionIds.join(', ')})`, role: 'specialist' });
    ctx.commitProgress(state);
  };

  const work = async (packet: Packet, workerId: string): Promise<void> => {
    let result: PacketWork | undefined;
    try {
      result = await ctx.worker.work(
        {
          runId: state.run.id,
          iteration: state.run.iteration,
          level: state.run.effort,
          workerId,
          packet,
          view: specialistView(state, packet),
          maxSteps: steps,
          timeUp: () => ctx.timeUp(),
          onEvent: (e) => ctx.emit(state, { ...e, phase: 'EXECUTE' }),
        },
        ctx.signal,
      );
    } catch (error) {
      // Cancellation and a spent budget end the whole node (the engine decides how the run ends); any other failure ends this packet only.
      if (ctx.signal.aborted || isCancellation(error) || isBudgetExceeded(error)) {
        failure ??= error;
        throw error;
      }
      finishPacket(packet, workerId, undefined, `the specialist failed: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    finishPacket(packet, workerId, result);
  };

  const runWorker = async (workerId: string): Promise<void> => {
    for (;;) {
      if (ctx.signal.aborted || failure) return;
      const packet = takeNext(workerId);
      if (!packet) {
        // The rows of a remaining packet may be held by a packet in flight: wait for one to end.
        if (!state.packets.some((p) => p.status === 'PLANNED') || active.size === 0) return;
        await Promise.race([...active].map((p) => p.catch(() => undefined)));
        continue;
      }
      const job = work(packet, workerId);
      active.add(job);
      try {
        await job;
      } finally {
        active.delete(job);
      }
    }
  };

  const active = new Set<Promise<void>>();
  const results = await Promise.allSettled(Array.from({ length: parallel }, (_, i) => runWorker(`${ctx.instance}-w${i + 1}`)));
  if (failure) throw failure;
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
  if (ctx.timeUp() && state.packets.some((p) => p.status === 'PLANNED')) throw new NodeBudgetCutError('EXECUTE', ctx.allowanceMs);
}

function dropUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
