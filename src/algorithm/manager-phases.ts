import type { z } from 'zod';
import { cacheFieldsOf, usageToRunEvent } from '../llm/usage';
import type { AnyCriterion, Packet } from '../model';
import { decision, describeChange, type NodeContext } from './context';
import { addRow } from './isc-manager';
import { CriteriaDraft, CriteriaReview, OUTPUT_SCHEMAS, Plan, VerificationPlan, type DraftCriterion, type OutputSchemaName } from './outputs';
import { addLearnedRows, memoryOffers } from './memory-offers';
import { managerMessages } from './prompts';
import type { AlgorithmState } from '../model/algorithm-state';
import { managerView, type ManagerView } from './views';

/** Asks the manager role for the phase's structured output and records what the call cost. */
async function askManager<S extends z.ZodType>(state: AlgorithmState, ctx: NodeContext, schema: S, learned: ManagerView['learnedFromPastRuns'] = []): Promise<z.output<S>> {
  const role = ctx.roles.manager;
  const name = role.outputs[ctx.phase] as OutputSchemaName | undefined;
  if (!name || OUTPUT_SCHEMAS[name] !== (schema as unknown)) throw new Error(`the manager role file gives no matching output for ${ctx.phase}`);
  const view = managerView(state, ctx.phase, { minCriteria: ctx.spec.minCriteria, maxCriteria: ctx.spec.maxCriteria }, learned);
  const result = await ctx.models.generateObject('manager', state.run.effort, {
    name: name.replace(/-/g, '_'),
    schema,
    messages: managerMessages(role, view, name, ctx.retryProblems),
    phase: ctx.phase,
    signal: ctx.signal,
    maxOutputTokens: role.policy.maxOutputTokens,
    ...(role.policy.temperature !== undefined ? { temperature: role.policy.temperature } : {}),
  });
  for (const u of result.usage) {
    const e = usageToRunEvent(u, { runId: state.run.id, seq: 0, at: '', phase: ctx.phase, role: 'manager', purpose: `${ctx.phase}: ${name}` });
    ctx.emit(state, { kind: 'model', message: e.message, role: 'manager', model: e.model, inputTokens: e.inputTokens, outputTokens: e.outputTokens, ...cacheFieldsOf(e), costUsd: e.costUsd, durationMs: e.durationMs });
  }
  return result.value;
}

function recordDecisions(state: AlgorithmState, ctx: NodeContext, drafts: readonly { decision: string; rationale: string }[]): void {
  const at = ctx.clock.now().toISOString();
  for (const d of drafts) state.decisions.push(decision(state, 'manager', d.decision, d.rationale, at));
}

/** Replaces the criteria with a reviewed list: the user's pinned rows stay as written, others merge by id. */
function mergeCriteria(state: AlgorithmState, drafts: readonly DraftCriterion[], at: string): AnyCriterion[] {
  const pinned = new Set(state.memo.pinned);
  const old = new Map(state.criteria.map((c) => [c.id, c]));
  let out: AnyCriterion[] = state.criteria.filter((c) => pinned.has(c.id));
  const texts = new Set(out.map((c) => c.text.toLowerCase()));
  for (const d of drafts) {
    if (d.id && pinned.has(d.id)) continue;
    if (texts.has(d.text.toLowerCase())) continue;
    texts.add(d.text.toLowerCase());
    const prior = d.id ? old.get(d.id) : undefined;
    // Criteria the user did not write are never EXPLICIT when a PRD gave the spec.
    const source = pinned.size > 0 && d.source === 'EXPLICIT' ? 'INFERRED' : d.source;
    if (prior && (prior.kind === 'anti-criterion') === d.anti) {
      out.push({ ...prior, text: d.text, priority: d.priority, source, ...(d.domain ? { domain: d.domain } : {}), ...(d.verify ? { verify: d.verify } : {}), updatedAt: at } as AnyCriterion);
    } else {
      out = addRow(out, { text: d.text, anti: d.anti, source, priority: d.priority, domain: d.domain, verify: d.verify }, at);
    }
  }
  // Keep the row order of the previous version where rows survive.
  const rank = (c: AnyCriterion) => (old.has(c.id) ? state.criteria.findIndex((x) => x.id === c.id) : Number.MAX_SAFE_INTEGER);
  return out.map((c, i) => [c, i] as const).sort((a, b) => rank(a[0]) - rank(b[0]) || a[1] - b[1]).map(([c]) => c);
}

function applyCriteria(state: AlgorithmState, ctx: NodeContext, next: AnyCriterion[], why: string): void {
  const change = describeChange(state.criteria, next);
  if (!change) return;
  const at = ctx.clock.now().toISOString();
  state.criteria = next;
  state.run = { ...state.run, criteriaVersion: state.run.criteriaVersion + 1 };
  state.decisions.push(decision(state, 'system', `criteria version ${state.run.criteriaVersion}: ${change}`, why, at));
  state.memo.delta = `${ctx.phase}: criteria ${change}`;
}

export async function observe(state: AlgorithmState, ctx: NodeContext): Promise<void> {
  const memory = await memoryOffers(state, ctx);
  const out = await askManager(state, ctx, CriteriaDraft, memory.view);
  recordDecisions(state, ctx, out.decisions);
  const merged = mergeCriteria(state, out.criteria, ctx.clock.now().toISOString());
  applyCriteria(state, ctx, addLearnedRows(state, ctx, merged, memory.offers), 'OBSERVE turned the request into criteria');
}

export async function think(state: AlgorithmState, ctx: NodeContext): Promise<void> {
  const out = await askManager(state, ctx, CriteriaReview);
  recordDecisions(state, ctx, out.decisions);
  const at = ctx.clock.now().toISOString();
  // Rows that already passed keep their status; the rest are worked again.
  const reviewed = mergeCriteria(state, out.criteria, at);
  // A criterion the verifier found unmet cannot be reviewed away: it stays (reworded, perhaps).
  const unmet = state.report ? state.criteria.filter((c) => c.outcome !== undefined && c.outcome !== 'PASS' && !reviewed.some((r) => r.id === c.id)) : [];
  if (unmet.length > 0) ctx.emit(state, { kind: 'note', message: `THINK tried to drop unmet ${unmet.map((c) => c.id).join(', ')}; kept`, role: 'system' });
  // Rows learned from past runs are the user's to drop (in the PRD), not the reviewer's.
  const learned = state.criteria.filter((c) => state.memo.learned.includes(c.id) && !reviewed.some((r) => r.id === c.id) && !unmet.includes(c));
  if (learned.length > 0) ctx.emit(state, { kind: 'note', message: `THINK tried to drop ${learned.map((c) => c.id).join(', ')}, learned from past runs; kept for the user to decide`, role: 'system' });
  unmet.push(...learned);
  const merged = [...reviewed, ...unmet].map((c) => (state.criteria.find((o) => o.id === c.id && o.text === c.text && o.outcome === 'PASS') ? c : ({ ...c, status: 'PENDING', outcome: undefined } as AnyCriterion)));
  applyCriteria(state, ctx, merged.map(stripUndefined), 'THINK reviewed the criteria for completeness and testability');
}

export async function plan(state: AlgorithmState, ctx: NodeContext): Promise<void> {
  const out = await askManager(state, ctx, Plan);
  recordDecisions(state, ctx, out.decisions);
  const at = ctx.clock.now().toISOString();
  const open = new Set(state.criteria.filter((c) => c.outcome !== 'PASS').map((c) => c.id));
  const coverage: Record<string, string[]> = {};
  for (const [id, owners] of Object.entries(state.memo.coverage)) if (!open.has(id) && state.criteria.some((c) => c.id === id)) coverage[id] = owners;
  const packets: Packet[] = out.packets.map((p, i) => ({
    id: `pkt-${state.run.iteration}-${i + 1}`,
    runId: state.run.id,
    iteration: state.run.iteration,
    title: p.title,
    criterionIds: p.criterionIds,
    dependsOn: p.dependsOn,
    status: 'PLANNED',
    createdAt: at,
    updatedAt: at,
  }));
  for (const p of packets) for (const id of p.criterionIds) coverage[id] = [...(coverage[id] ?? []), p.id];
  for (const w of out.waived) {
    coverage[w.criterionId] = ['waived'];
    state.decisions.push(decision(state, 'manager', `waived ${w.criterionId}`, w.rationale, at));
  }
  state.packets = packets;
  state.candidates = [];
  state.memo.coverage = coverage;
}

export async function build(state: AlgorithmState, ctx: NodeContext): Promise<void> {
  const out = await askManager(state, ctx, VerificationPlan);
  recordDecisions(state, ctx, out.decisions);
  const at = ctx.clock.now().toISOString();
  const methods = new Map(out.methods.map((m) => [m.criterionId, m.verify]));
  const pinned = new Set(state.memo.pinned);
  // A method the user wrote is theirs; BUILD only fills in missing ones for their rows.
  const next = state.criteria.map((c) => (methods.has(c.id) && !(pinned.has(c.id) && c.verify) ? ({ ...c, verify: methods.get(c.id), updatedAt: at } as AnyCriterion) : c));
  applyCriteria(state, ctx, next, 'BUILD made the verification methods concrete');
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
