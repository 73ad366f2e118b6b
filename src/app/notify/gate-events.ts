import { verifyAnswer } from '../gate/answers';
import { gateVerdict, type GateDecision, type PrdCheck, type VerdictContext } from '../gate/verdict';
import type { EventData } from './payload';

/**
 * What a gate verdict tells the person's webhooks: `criteria.tampered` for each held PRD whose
 * locked (or baselined) criteria changed, and `gate.released` when the agent is let stop while
 * the criteria are unmet (the block limit was reached, or the agent said it needs a person).
 * Pure: read from the checks the verdict was made from, never from a log line.
 */
export type GateEvent = { event: 'criteria.tampered'; data: EventData<'criteria.tampered'> } | { event: 'gate.released'; data: EventData<'gate.released'> };

/** The host's deadline came before the checks finished: the PRD being verified, what the answer said, the criteria not yet verified. */
export interface GateUnverified {
  readonly prd: string;
  readonly summary: string;
  readonly ids: readonly string[];
}

export function gateEvents(checks: readonly PrdCheck[], heldBy: VerdictContext['heldBy'], final: GateDecision, context: { host: string; agentBlocked: boolean; unverified?: GateUnverified }): GateEvent[] {
  const events: GateEvent[] = [];
  // Let through at the block limit with its checks unfinished: unverified is not done either.
  const late = context.unverified;
  if (late && final.kind === 'allow') {
    const failing = late.ids.map((id) => ({ id, outcome: 'UNVERIFIED', evidence: 'its check had not finished when the host\'s deadline came' }));
    return [{ event: 'gate.released', data: { host: context.host, why: 'block-limit', summary: late.summary, prds: [{ prd: late.prd, failing }] } }];
  }
  for (const c of checks) {
    if (c.changes.length > 0) events.push({ event: 'criteria.tampered', data: { host: context.host, prd: c.shown, changes: c.changes.map((x) => ({ id: x.id, summary: x.summary })) } });
  }
  // The same checks with no block used up: a block here means the criteria are unmet.
  const unmet = gateVerdict(checks, { before: 0, maxBlocks: 1, heldBy });
  if (final.kind === 'allow' && unmet.kind === 'block') {
    events.push({
      event: 'gate.released',
      data: {
        host: context.host,
        why: context.agentBlocked ? 'agent-blocked' : 'block-limit',
        summary: unmet.summary,
        prds: checks.map((c) => ({ prd: c.shown, failing: failingOf(c) })).filter((p) => p.failing.length > 0 || checks.length === 1),
      },
    });
  }
  return events;
}

function failingOf(c: PrdCheck): { id: string; outcome: string; evidence: string }[] {
  const tampered = c.changes.map((x) => ({ id: x.id, outcome: 'TAMPERED', evidence: x.summary }));
  if (c.result?.kind !== 'verified') return [...tampered, ...(c.result ? [{ id: c.shown, outcome: c.result.kind, evidence: 'message' in c.result ? c.result.message : c.result.summary }] : [])];
  const answer = verifyAnswer(c.shown, c.result.prd, c.result.set);
  return [...tampered, ...answer.results.filter((r) => r.outcome !== 'PASS').map((r) => ({ id: r.id, outcome: r.outcome, evidence: r.evidence }))];
}
