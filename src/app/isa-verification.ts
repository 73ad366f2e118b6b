import { AnyCriterion, ANTI_CRITERION_ID, CRITERION_ID } from '../model/criterion';
import type { Outcome } from '../model/outcome';
import type { CriterionResult } from '../model/report';
import { summarize } from '../verify/verify-criteria';
import type { VerifySetResult } from '../verify/types';
import { isaCompletionProblems } from '../prd/isa/completion';
import { isContainer, liveClaims, type IsaClaim, type IsaDocument, type IsaProbePlan } from '../prd/isa/model';
import { planProbe } from '../prd/isa/probe';

/**
 * An ISA's claims as the verifier's criteria. The store and the engine know only ids like
 * `ISC-1`; an ISA also has `ISC-2.1`, `C1` and `A3`, so each claim gets an internal id
 * (`ISC-2-1`, `ISC-C-1`, `ISC-ISA-A-3`) and results are mapped back with `isaResults`.
 * Every claim is a plain criterion to the engine, anti-claims too: an ISA's probe states
 * the good state, so an anti-claim holds exactly when its probe passes.
 */
export interface IsaVerifiable {
  readonly criteria: AnyCriterion[];
  /** Internal id → the ISA's id. */
  readonly isaIdOf: ReadonlyMap<string, string>;
  /** ISA id → how its probe is run (absent for a container verified through its parts). */
  readonly plans: ReadonlyMap<string, IsaProbePlan>;
  /** Claims whose outcome comes from their parts (`ISC-2` of `ISC-2.1`, `ISC-2.2`), deepest first. */
  readonly containers: readonly string[];
  readonly problems: readonly { line: number; message: string }[];
}

export function isaCriteria(doc: IsaDocument, at: string): IsaVerifiable {
  const firstProbe = new Map<string, (typeof doc.probes)[number]>();
  for (const p of doc.probes) if (!firstProbe.has(p.isc)) firstProbe.set(p.isc, p);
  const taken = new Set<string>();
  const isaIdOf = new Map<string, string>();
  const plans = new Map<string, IsaProbePlan>();
  const criteria: AnyCriterion[] = [];
  const problems: { line: number; message: string }[] = [];
  const containers: IsaClaim[] = [];
  for (const c of liveClaims(doc)) {
    const probe = firstProbe.get(c.id);
    if (!probe && isContainer(doc, c.id)) {
      containers.push(c);
      continue;
    }
    const plan: IsaProbePlan = probe ? planProbe(probe) : { kind: 'unknown', reason: `no Test Strategy row names ${c.id}, so nothing here can prove it` };
    plans.set(c.id, plan);
    const id = internalId(c.id, taken);
    isaIdOf.set(id, c.id);
    const parsed = AnyCriterion.safeParse({
      kind: 'criterion',
      id,
      text: `${c.anti ? 'Anti: ' : ''}${c.text}`,
      priority: 'CRITICAL',
      source: 'EXPLICIT',
      ...(plan.kind === 'method' ? { verify: plan.method } : {}),
      status: c.checked ? 'DONE' : 'PENDING',
      createdAt: at,
      updatedAt: at,
    });
    if (parsed.success) criteria.push(parsed.data);
    else problems.push({ line: c.line, message: `${c.id}: ${parsed.error.issues.map((i) => i.message).join('; ')}` });
  }
  const depth = (id: string) => id.split('.').length;
  return { criteria, isaIdOf, plans, containers: containers.map((c) => c.id).sort((a, b) => depth(b) - depth(a)), problems };
}

/** A valid criterion id (not an anti-criterion's) that no other claim of this ISA has. */
function internalId(isaId: string, taken: Set<string>): string {
  let id: string;
  if (CRITERION_ID.test(isaId) && !ANTI_CRITERION_ID.test(isaId)) id = isaId;
  else {
    const parts = isaId.toUpperCase().replace(/^ISC-/, '').split(/[^A-Z0-9]+|(?<=[A-Z])(?=\d)/).filter(Boolean);
    id = `ISC-${parts.join('-')}`;
    if (ANTI_CRITERION_ID.test(id) || !CRITERION_ID.test(id)) id = `ISC-ISA-${parts.join('-')}`;
    if (!CRITERION_ID.test(id)) id = 'ISC-ISA-1';
  }
  let unique = id;
  for (let n = 2; taken.has(unique); n++) unique = `${id}-${n}`;
  taken.add(unique);
  return unique;
}

/**
 * The engine's results under the ISA's ids, in document order: claims that nothing here can
 * run say why (manual, screenshot, no probe), containers take their parts' outcome, and the
 * summary and the fail-closed verdict are computed over the ISA's claims.
 */
export function isaResults(doc: IsaDocument, v: IsaVerifiable, set: VerifySetResult): VerifySetResult {
  const byIsa = new Map<string, CriterionResult>();
  for (const r of set.results) {
    const isaId = v.isaIdOf.get(r.criterionId) ?? r.criterionId;
    const plan = v.plans.get(isaId);
    const base = { ...r, criterionId: isaId };
    byIsa.set(isaId, plan?.kind === 'unknown' ? { ...base, outcome: 'UNKNOWN', evidence: `${isaId} is not checked here: ${plan.reason}`, failureLabel: 'UNSUPPORTED_CLAIM', repairTarget: `${isaId} has a probe that can be run (bash, bun-test, bun-property, curl) or judged (eval)` } : base);
  }
  for (const id of v.containers) {
    const parts = doc.claims.filter((c) => c.parent === id && !c.tombstone).map((c) => byIsa.get(c.id));
    const verified = parts.filter((p): p is CriterionResult => p !== undefined);
    // Only some claims verified (`only`), not all its parts: what holds of the container is not known, so it is not reported.
    if (verified.length < parts.length) continue;
    byIsa.set(id, containerResult(id, verified));
  }
  const order = liveClaims(doc).map((c) => c.id).filter((id) => byIsa.has(id));
  const results = order.map((id) => byIsa.get(id)!);
  const coverage = Object.fromEntries(Object.entries(set.coverage).map(([k, c]) => [v.isaIdOf.get(k) ?? k, c]));
  const claimsAsCriteria = order.map((id) => ({ id, priority: 'CRITICAL' }) as AnyCriterion);
  const summary = summarize(claimsAsCriteria, results, coverage);
  // The whole ISA verified: what LifeOS's Stop gate refuses at close (fog left, progress not M/N) keeps it from done, whatever the claims say.
  const whole = v.criteria.every((c) => set.results.some((r) => r.criterionId === c.id));
  const unfinished = whole ? isaCompletionProblems(doc) : [];
  const down = downClaims(doc, results);
  let text = summary.summary;
  if (down.length > 0) text = `${text}; down: ${down.join(', ')} (severity: critical) ${down.length === 1 ? 'does' : 'do'} not pass`;
  if (unfinished.length > 0) text = `${text}; not done: ${unfinished.map((p) => `line ${p.line + 1}: ${p.message}`).join('; ')}`;
  return { ...summary, summary: text, ...(unfinished.length > 0 ? { passed: false } : {}), ...(set.commands ? { commands: set.commands } : {}) };
}

/**
 * Claims whose probe says `severity: critical` (LifeOS v2.17: the app does not do its job
 * while one fails) and that do not pass, in document order. Every ISA claim already blocks
 * done — an ISA is done when all its claims pass — so severity changes the words, naming these
 * first as "down", not which claims block.
 */
function downClaims(doc: IsaDocument, results: readonly CriterionResult[]): string[] {
  const critical = new Set(doc.probes.filter((p) => p.severity === 'critical' && p.isc).map((p) => p.isc));
  return results.filter((r) => critical.has(r.criterionId) && r.outcome !== 'PASS').map((r) => r.criterionId);
}

function containerResult(id: string, parts: CriterionResult[]): CriterionResult {
  const has = (o: Outcome) => parts.some((p) => p.outcome === o);
  const outcome: Outcome = parts.length === 0 ? 'UNKNOWN' : parts.every((p) => p.outcome === 'PASS') ? 'PASS' : has('FAIL') ? 'FAIL' : has('PARTIAL') ? 'PARTIAL' : 'UNKNOWN';
  const list = parts.map((p) => `${p.criterionId} ${p.outcome}`).join(', ');
  const evidence = `${parts.filter((p) => p.outcome === 'PASS').length} of ${parts.length} parts pass${list ? ` (${list})` : ''}`;
  const failing = parts.filter((p) => p.outcome !== 'PASS').map((p) => p.criterionId);
  return {
    criterionId: id,
    outcome,
    evidence,
    durationMs: parts.reduce((s, p) => s + p.durationMs, 0),
    ...(outcome === 'PASS' ? {} : { failureLabel: outcome === 'UNKNOWN' ? 'UNSUPPORTED_CLAIM' : 'REQUIREMENT_COVERAGE', repairTarget: failing.length > 0 ? `${failing.join(', ')} pass` : `${id} has parts that can be verified` }),
    locations: [],
  } as CriterionResult;
}
