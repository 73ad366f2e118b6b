import type { GateOutcomeRecord } from '../../model/gate-outcome';
import { Loop } from '../../model/loop';
import { EXIT_STATES } from '../../model/run-states';
import type { SqlParam } from '../../store/durable-database';
import { DASHBOARD_DATA_VERSION, type DashboardData, type DayFigures, type FailingCriterion, type HostFigures, type LoopFigures, type PrdFigures, type RunFigures, type RunRow, type TamperedEvent } from './data';
import { median, roundUsd } from './figures';

/** What the dashboard reads: SQL over the store's tables (Store.read), nothing written. */
export interface DashboardStore {
  read<T>(sql: string, params?: readonly SqlParam[]): T[];
}

export interface DashboardOptions {
  now?: Date;
  /** Rows of the recent-runs table (default 50). */
  recentRuns?: number;
  /** Days shown over time, ending with the newest day that has something (default 120). */
  days?: number;
  /**
   * The gate's verdicts kept elsewhere (the editor reads them where the gate leaves them:
   * gate-outcomes.ts), counted with the store's own; a verdict in both counts once (by id).
   */
  gateOutcomes?: readonly GateOutcomeRecord[];
}

export const NO_PRD = '(no PRD)';
const TEXT_LIMIT = 240;

/** One run, and its sums from the queries below. */
interface RunFacts {
  id: string;
  state: string;
  created_at: string;
  request: string | null;
  prd: string | null;
  started: string | null;
  finished: string | null;
  criteria: number | null;
  passed: number | null;
  input: number | null;
  output: number | null;
  usd: number | null;
  rating: number | null;
}

/**
 * The figures come from a few grouped scans, each along an index, joined here by run id:
 * reading each run's rows apart costs three queries and a JSON parse per row per run (and
 * joining the grouped scans inside SQLite made it scan them again per run; bench/dashboard.mjs
 * measures both).
 */
const RUNS_SQL = `SELECT id, state, created_at,
  substr(json_extract(data, '$.request'), 1, ${TEXT_LIMIT}) AS request,
  json_extract(data, '$.prdPath') AS prd,
  json_extract(data, '$.startedAt') AS started,
  json_extract(data, '$.finishedAt') AS finished
FROM runs ORDER BY created_at, id`;
/** Per run and criteria version: the latest version is the one that counts. */
const CRITERIA_SQL = `SELECT run_id, version, COUNT(*) AS n, SUM(outcome = 'PASS') AS passed FROM criteria GROUP BY run_id, version`;
/** Model usage, as src/model/run-usage.ts sums a run's `model` events. */
const USAGE_SQL = `SELECT run_id, SUM(input_tokens) AS i, SUM(output_tokens) AS o, SUM(cost_usd) AS usd FROM run_events WHERE kind = 'model' GROUP BY run_id`;
/** The latest rating of each run (SQLite takes the bare column from the row of the MAX). */
const RATED_SQL = `SELECT run_id, rating, MAX(timestamp) AS at FROM ratings WHERE run_id IS NOT NULL GROUP BY run_id`;

/** Criteria failing most, over each run's latest version; the text read only for criteria with a verdict. */
const FAILING_SQL = `
WITH latest AS (SELECT run_id, MAX(version) AS v FROM criteria GROUP BY run_id)
SELECT c.id AS id, substr(json_extract(c.data, '$.text'), 1, ${TEXT_LIMIT}) AS text,
  COUNT(*) AS verified, SUM(c.outcome IN ('FAIL', 'PARTIAL')) AS failed, MAX(c.run_id) AS run
FROM criteria c JOIN latest l ON l.run_id = c.run_id AND c.version = l.v
WHERE c.outcome IS NOT NULL
GROUP BY c.id, text HAVING failed > 0
ORDER BY failed DESC, verified DESC, c.id LIMIT 10`;

function runFacts(store: DashboardStore): RunFacts[] {
  const latest = new Map<string, { version: number; n: number; passed: number }>();
  for (const r of store.read<{ run_id: string; version: number; n: number; passed: number }>(CRITERIA_SQL)) {
    const known = latest.get(r.run_id);
    if (!known || r.version > known.version) latest.set(r.run_id, { version: r.version, n: r.n, passed: r.passed });
  }
  const usage = new Map(store.read<{ run_id: string; i: number; o: number; usd: number }>(USAGE_SQL).map((u) => [u.run_id, u]));
  const rated = new Map(store.read<{ run_id: string; rating: number }>(RATED_SQL).map((r) => [r.run_id, r.rating]));
  return store.read<Omit<RunFacts, 'criteria' | 'passed' | 'input' | 'output' | 'usd' | 'rating'>>(RUNS_SQL).map((r) => {
    const c = latest.get(r.id);
    const u = usage.get(r.id);
    return { ...r, criteria: c?.n ?? null, passed: c?.passed ?? null, input: u?.i ?? null, output: u?.o ?? null, usd: u?.usd ?? null, rating: rated.get(r.id) ?? null };
  });
}

/** Builds the dashboard's figures from a store. Pure reads; the same store gives the same figures. */
export function aggregateDashboard(store: DashboardStore, options: DashboardOptions = {}): DashboardData {
  const now = options.now ?? new Date();
  const facts = runFacts(store);
  const exit = new Set<string>(EXIT_STATES);

  const totals = newFigures();
  const days = new Map<string, DayFigures>();
  const prds = new Map<string, PrdFigures>();
  const completeTimes = { all: [] as number[], day: new Map<string, number[]>(), prd: new Map<string, number[]>() };
  const rows: RunRow[] = [];
  for (const f of facts) {
    const completeMs = f.state === 'COMPLETE' ? timeToComplete(f) : undefined;
    const day = f.created_at.slice(0, 10);
    const prd = f.prd ?? NO_PRD;
    const dayFigures = getOr(days, day, () => newDay(day));
    const prdFigures = getOr(prds, prd, (): PrdFigures => ({ prd, ...newFigures(), lastState: f.state, lastAt: f.created_at, ratings: 0, gatePassed: 0, gateBlocked: 0, gateReleased: 0, tampered: 0 }));
    for (const figures of [totals, dayFigures, prdFigures]) addRun(figures, f, exit);
    prdFigures.lastState = f.state;
    prdFigures.lastAt = f.created_at;
    if (completeMs !== undefined) {
      completeTimes.all.push(completeMs);
      getOr(completeTimes.day, day, () => []).push(completeMs);
      getOr(completeTimes.prd, prd, () => []).push(completeMs);
    }
    if (f.rating !== null) {
      prdFigures.ratings++;
      prdFigures.averageRating = (prdFigures.averageRating ?? 0) + f.rating;
    }
    rows.push({
      id: f.id,
      request: f.request ?? '',
      ...(f.prd ? { prd: f.prd } : {}),
      state: f.state,
      createdAt: f.created_at,
      criteriaPassed: f.passed ?? 0,
      criteriaTotal: f.criteria ?? 0,
      ...(completeMs !== undefined ? { completeMs } : {}),
      inputTokens: f.input ?? 0,
      outputTokens: f.output ?? 0,
      usd: roundUsd(f.usd ?? 0),
      ...(f.rating !== null ? { rating: f.rating } : {}),
    });
  }
  setMedian(totals, completeTimes.all);
  for (const [day, times] of completeTimes.day) setMedian(days.get(day)!, times);
  for (const [prd, times] of completeTimes.prd) setMedian(prds.get(prd)!, times);
  for (const p of prds.values()) if (p.ratings > 0) p.averageRating = round1(p.averageRating! / p.ratings);

  // Every rating over time, those of runs no longer in the store (imported) too.
  const ratingDays = store.read<{ day: string; n: number; total: number }>(`SELECT substr(timestamp, 1, 10) AS day, COUNT(*) AS n, SUM(rating) AS total FROM ratings GROUP BY day`);
  let ratingCount = 0;
  let ratingSum = 0;
  for (const r of ratingDays) {
    const d = getOr(days, r.day, () => newDay(r.day));
    d.ratings = r.n;
    d.averageRating = round1(r.total / r.n);
    ratingCount += r.n;
    ratingSum += r.total;
  }

  const gate = gateFigures(gateRows(store, options.gateOutcomes ?? []), days, prds);
  const dayList = [...days.values()].sort((a, b) => a.day.localeCompare(b.day)).slice(-(options.days ?? 120));
  const loops = loopFigures(store);
  const prdOf = new Map(facts.map((f) => [f.id, f.prd]));
  const failing = store.read<Omit<FailingCriterion, 'prd'> & { run: string }>(FAILING_SQL).map(({ run, ...c }): FailingCriterion => {
    const prd = prdOf.get(run);
    return { ...c, ...(prd ? { prd } : {}) };
  });
  const roundAll = (f: RunFigures) => (f.usd = roundUsd(f.usd));
  roundAll(totals);
  dayList.forEach(roundAll);
  prds.forEach(roundAll);
  return {
    version: DASHBOARD_DATA_VERSION,
    generatedAt: now.toISOString(),
    empty: facts.length === 0 && ratingCount === 0 && gate.stops === 0 && loops.length === 0,
    totals: { ...totals, ratings: ratingCount, ...(ratingCount > 0 ? { averageRating: round1(ratingSum / ratingCount) } : {}), gateStops: gate.stops, tampered: gate.tamperedCount },
    days: dayList,
    prds: [...prds.values()].sort((a, b) => b.runs - a.runs || a.prd.localeCompare(b.prd)),
    recentRuns: rows.reverse().slice(0, options.recentRuns ?? 50),
    hosts: gate.hosts,
    tampered: gate.tampered,
    failing,
    loops,
  };
}

function newFigures(): RunFigures {
  return { runs: 0, finished: 0, complete: 0, states: {}, criteriaPassed: 0, criteriaTotal: 0, inputTokens: 0, outputTokens: 0, usd: 0 };
}

function newDay(day: string): DayFigures {
  return { day, ...newFigures(), ratings: 0, gateBlocked: 0, gateReleased: 0 };
}

function addRun(figures: RunFigures, f: RunFacts, exit: ReadonlySet<string>): void {
  figures.runs++;
  if (exit.has(f.state)) figures.finished++;
  if (f.state === 'COMPLETE') figures.complete++;
  figures.states[f.state] = (figures.states[f.state] ?? 0) + 1;
  figures.criteriaPassed += f.passed ?? 0;
  figures.criteriaTotal += f.criteria ?? 0;
  figures.inputTokens += f.input ?? 0;
  figures.outputTokens += f.output ?? 0;
  figures.usd += f.usd ?? 0;
}

/** Wall time from the run's start (its creation when it has no start) to its finish; undefined when either is missing or out of order. */
function timeToComplete(f: RunFacts): number | undefined {
  const from = Date.parse(f.started ?? f.created_at);
  const to = f.finished ? Date.parse(f.finished) : NaN;
  return Number.isFinite(from) && Number.isFinite(to) && to >= from ? to - from : undefined;
}

function setMedian(figures: RunFigures, times: number[]): void {
  const m = median(times);
  if (m !== undefined) figures.medianCompleteMs = m;
}

/** One gate verdict as the figures need it. */
interface GateRow {
  at: string;
  host: string;
  verdict: string;
  prds: { path: string; tampered: readonly string[] }[];
}

/** The store's verdicts and the ones given, each once (a verdict already folded into the store may be given too). */
function gateRows(store: DashboardStore, extra: readonly GateOutcomeRecord[]): GateRow[] {
  const rows = new Map<string, GateRow>();
  for (const r of store.read<{ id: string; at: string; host: string; verdict: string; prds: string | null }>(`SELECT id, at, host, verdict, json_extract(data, '$.prds') AS prds FROM gate_outcomes`)) {
    rows.set(r.id, { at: r.at, host: r.host, verdict: r.verdict, prds: parsePrds(r.prds) });
  }
  for (const g of extra) if (!rows.has(g.id)) rows.set(g.id, { at: g.at, host: g.host, verdict: g.verdict, prds: g.prds });
  return [...rows.values()];
}

function gateFigures(rows: readonly GateRow[], days: Map<string, DayFigures>, prds: Map<string, PrdFigures>): { stops: number; hosts: HostFigures[]; tampered: TamperedEvent[]; tamperedCount: number } {
  const byHost = new Map<string, HostFigures>();
  const tampered: TamperedEvent[] = [];
  for (const r of rows) {
    const h = getOr(byHost, r.host, () => ({ host: r.host, stops: 0, passed: 0, blocked: 0, released: 0 }));
    h.stops++;
    const day = getOr(days, r.at.slice(0, 10), () => newDay(r.at.slice(0, 10)));
    if (r.verdict === 'passed') h.passed++;
    else if (r.verdict === 'blocked') {
      h.blocked++;
      day.gateBlocked++;
    } else if (r.verdict === 'released') {
      h.released++;
      day.gateReleased++;
    }
    // Per held PRD: its verdicts, and the stops at which something of it was TAMPERED.
    for (const held of r.prds) {
      if (held.tampered.length > 0) tampered.push({ at: r.at, host: r.host, prd: held.path, what: [...held.tampered] });
      const p = prds.get(held.path);
      if (!p) continue; // a PRD the gate held that no run of this store names: its verdicts count per host only
      if (r.verdict === 'passed') p.gatePassed++;
      else if (r.verdict === 'blocked') p.gateBlocked++;
      else if (r.verdict === 'released') p.gateReleased++;
      if (held.tampered.length > 0) p.tampered++;
    }
  }
  tampered.sort((a, b) => b.at.localeCompare(a.at));
  return { stops: rows.length, hosts: [...byHost.values()].sort((a, b) => b.stops - a.stops || a.host.localeCompare(b.host)), tampered: tampered.slice(0, 50), tamperedCount: tampered.length };
}

/** A stored verdict's held PRDs; a row this version cannot read counts per host only. */
function parsePrds(json: string | null): GateRow['prds'] {
  if (json === null) return [];
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return [];
    return value.flatMap((p: { path?: unknown; tampered?: unknown }) => (typeof p?.path === 'string' ? [{ path: p.path, tampered: Array.isArray(p.tampered) ? p.tampered.filter((t): t is string => typeof t === 'string') : [] }] : []));
  } catch {
    return [];
  }
}

function loopFigures(store: DashboardStore): LoopFigures[] {
  const out: LoopFigures[] = [];
  for (const row of store.read<{ data: string }>(`SELECT data FROM loops ORDER BY updated_at DESC LIMIT 20`)) {
    let parsed;
    try {
      parsed = Loop.safeParse(JSON.parse(row.data));
    } catch {
      continue;
    }
    if (!parsed.success) continue; // not a loop this version wrote; the loop views say so
    const loop = parsed.data;
    let previous: number | undefined;
    const snapshots = [...loop.log]
      .sort((a, b) => a.iteration - b.iteration)
      .map((e) => {
        const delta = previous === undefined ? e.passing : e.passing - previous;
        previous = e.passing;
        return { iteration: e.iteration, at: e.at, passing: e.passing, total: e.total, delta };
      });
    out.push({ id: loop.id, title: `${loop.spec.isc} · ${loop.spec.glob}`, state: loop.state, updatedAt: loop.updatedAt, passing: loop.passing, total: loop.total, snapshots });
  }
  return out;
}

function getOr<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}
