import { describeError } from '../model/errors';
import { describeProvenance, type LearnedCriterion } from '../learning/memory';
import type { AnyCriterion } from '../model';
import { decision, type NodeContext } from './context';
import { untestable } from './gates';
import { addRow } from './isc-manager';
import type { AlgorithmState } from '../model/algorithm-state';
import type { ManagerView } from './views';

/**
 * Memory into OBSERVE. Criteria learned from similar past runs are told to
 * the manager as suggestions, then added as INFERRED rows whose notes say where each came
 * from — in the run's PRD and ISC table, where the user drops the ones they do not want.
 * Adding rather than only offering keeps a lesson from being lost to a manager that
 * ignores it. Only a past run's own criteria become rows (with their verification method),
 * and only when they could pass THINK's testable gate; a theme's suggested change is advice
 * about the process, not a state of the work, so it stays a suggestion to the manager and
 * is named in the decision. In the editor the person is asked first which rows to keep;
 * a dropped one is neither added nor told to the manager, and the decision says so.
 */

export interface MemoryOffers {
  readonly offers: readonly LearnedCriterion[];
  readonly view: NonNullable<ManagerView['learnedFromPastRuns']>;
}

const NONE: MemoryOffers = { offers: [], view: [] };

/** Asks learning for this request's memory; a failure is a run event, never the run's end. */
export async function memoryOffers(state: AlgorithmState, ctx: NodeContext): Promise<MemoryOffers> {
  if (!ctx.learning) return NONE;
  try {
    const offers = await ctx.learning.memoryFor(state.run.request, ctx.signal, ctx.asking);
    return { offers, view: offers.filter((o) => o.answer !== 'dropped').map((o) => ({ text: o.text, from: describeProvenance(o.provenance) })) };
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    ctx.emit(state, { kind: 'note', message: `memory of past runs unavailable (${describeError(error)}); OBSERVE goes on without it`, role: 'system' });
    return NONE;
  }
}

const key = (text: string) => text.toLowerCase().replace(/\W+/g, ' ').trim();

/** The criteria with the offers the manager did not already cover added as INFERRED rows, within the level's maximum. */
export function addLearnedRows(state: AlgorithmState, ctx: NodeContext, criteria: AnyCriterion[], offers: readonly LearnedCriterion[]): AnyCriterion[] {
  if (offers.length === 0) return criteria;
  const at = ctx.clock.now().toISOString();
  const have = new Set(criteria.map((c) => key(c.text)));
  let out = criteria;
  const added: string[] = [];
  const ids: string[] = [];
  const offeredOnly: string[] = [];
  const dropped: string[] = [];
  for (const offer of offers) {
    if (offer.answer === 'dropped') {
      dropped.push(`"${offer.text}" (${describeProvenance(offer.provenance)})`);
      continue;
    }
    if (have.has(key(offer.text))) continue;
    if (offer.provenance.kind !== 'past-run' || untestable(offer.text).length > 0 || out.length >= ctx.spec.maxCriteria) {
      offeredOnly.push(`"${offer.text}" (${describeProvenance(offer.provenance)})`);
      continue;
    }
    out = addRow(out, { text: offer.text, anti: offer.anti === true, source: 'INFERRED', priority: 'IMPORTANT', ...(offer.verify ? { verify: offer.verify } : {}) }, at);
    const row = out[out.length - 1]!;
    out = [...out.slice(0, -1), { ...row, notes: describeProvenance(offer.provenance) } as AnyCriterion];
    have.add(key(offer.text));
    added.push(`${row.id} "${row.text}"${offer.answer === 'kept' ? ', kept by the user,' : offer.answer === 'unanswered' ? ', kept by default (the question was closed without an answer),' : ''} (${describeProvenance(offer.provenance)})`);
    ids.push(row.id);
  }
  state.memo.learned = [...new Set([...state.memo.learned, ...ids])];
  const parts = [
    added.length > 0 ? `added as INFERRED from similar past runs: ${added.join('; ')}` : '',
    offeredOnly.length > 0 ? `suggested to the manager only (advice, not a testable criterion, or past the level's ${ctx.spec.maxCriteria}): ${offeredOnly.join('; ')}` : '',
    dropped.length > 0 ? `dropped by the user when offered: ${dropped.join('; ')}` : '',
  ].filter(Boolean);
  if (parts.length > 0) {
    state.decisions.push(decision(state, 'system', `OBSERVE memory: ${parts.join('; ')}`, 'criteria that failed or were missing in similar runs the user rated low; each row notes where it came from; drop a row in the PRD to refuse it', at));
    ctx.emit(state, { kind: 'note', message: `memory: ${parts.join('; ')}`, role: 'system' });
  }
  return out;
}
