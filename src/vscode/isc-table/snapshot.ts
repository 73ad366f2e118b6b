// Pure: no editor imports, so the row model and the deltas are unit-tested in plain Node.
import type { AnyCriterion, Run, RunEvent, VerificationReport, VerificationMethod } from '../../model';
import type { TableApproval, TableAbilities, TableDelta, TableHeader, TableLock, TableRow, TableSnapshot } from '../../../webviews/isc-table/protocol';
import { compareIds } from '../../../webviews/isc-table/view-model';
import type { PrdLockState } from '../lock/criteria-locks';
import { runStateIs } from '../../model/run-states';
import { usageLine } from '../../model/run-usage';

/** Whether a run has ended: an exit state (src/model/run-states.ts). */
export function isFinished(state: string): boolean {
  return runStateIs('exit', state);
}

export interface SnapshotInput {
  run: Run;
  criteria: readonly AnyCriterion[];
  /** Any order; the newest result of each criterion wins. */
  reports: readonly VerificationReport[];
  events: readonly Pick<RunEvent, 'inputTokens' | 'outputTokens' | 'costUsd' | 'cachedInputTokens' | 'cacheWriteTokens'>[];
  caps?: { tokens?: number; usd?: number };
  /** Criteria whose PASS a file change made stale since they were verified. */
  staleIds?: ReadonlySet<string>;
  approvals?: readonly TableApproval[];
  /** A run going in this window: its time as of now (the stored elapsed time is as of the last step). */
  live?: LiveTime;
  abilities: TableAbilities;
  /** The criteria lock of the run's PRD (absent: the run has no PRD). */
  lock?: TableLock;
  /** Criteria with a "Probe" note in the run's PRD: their check passed before any work. */
  probedIds?: ReadonlySet<string>;
}

/** A going run's time as of now; waiting for a person is not in `elapsedMs`. */
export interface LiveTime {
  elapsedMs: number;
  /** Waiting for a person now, this long. */
  waitingMs?: number;
  /** What the person is asked ("approval", "your answer: …"). */
  waitingFor?: string;
  /** Every wait for a person so far, the current one included. */
  waitedMs: number;
}

export function tableSnapshot(input: SnapshotInput): TableSnapshot {
  const newestFirst = [...input.reports].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  const results = new Map<string, Verdict>();
  for (const report of newestFirst) for (const result of report.results) if (!results.has(result.criterionId)) results.set(result.criterionId, { result, at: report.createdAt, version: report.criteriaVersion });
  const rows = input.criteria.map((c) => tableRow(c, results.get(c.id), input.run.criteriaVersion, input.staleIds?.has(c.id) ?? false, input.probedIds?.has(c.id) ?? false));
  rows.sort(compareIds);
  return { header: tableHeader(input), rows, approvals: [...(input.approvals ?? [])], abilities: input.abilities, ...(input.lock ? { lock: input.lock } : {}) };
}

interface Verdict {
  result: VerificationReport['results'][number];
  at: string;
  version: number;
}

function tableRow(c: AnyCriterion, verified: Verdict | undefined, runVersion: number, staleByFiles: boolean, probed: boolean): TableRow {
  const result = verified?.result;
  const outcome = c.outcome ?? result?.outcome;
  // Restated since its verdict (a newer criteria version changed this row: PRD sync, a table
  // edit): the old verdict is shown, marked stale. A row that only moved on in the same
  // version (the engine setting it DONE) is not.
  const restated = verified !== undefined && verified.version < runVersion && c.updatedAt > verified.at && c.verifiedAt === undefined;
  const row: TableRow = {
    id: c.id,
    kind: c.kind,
    text: c.text,
    priority: c.priority,
    source: c.source,
    status: c.status,
    stale: outcome !== undefined && (staleByFiles || restated),
    locations: result?.locations ?? [],
  };
  if (c.domain) row.domain = c.domain;
  if (c.verify) row.verify = describeMethod(c.verify);
  if (outcome) row.outcome = outcome;
  if (result) {
    row.evidence = [result.evidence, result.actual ? `actual: ${result.actual}` : '', result.threshold ? `expected: ${result.threshold}` : '', result.repairTarget ? `to pass: ${result.repairTarget}` : '']
      .filter(Boolean)
      .join('\n');
    row.durationMs = result.durationMs;
  }
  if (c.claim) row.claimedBy = c.claim.by;
  // Anti-criteria are expected to hold before any work: never marked (src/algorithm/probe.ts).
  if (probed && c.kind === 'criterion') row.probed = true;
  return row;
}

/** The method as a PRD line spells it ("Grep: Hello", "CLI: npm test"). */
export function describeMethod(m: VerificationMethod): string {
  switch (m.type) {
    case 'CLI':
      return `CLI: ${m.command}`;
    case 'TASK':
      return `Task: ${m.task}`;
    case 'TEST':
      return `Test: ${m.test}`;
    case 'GREP':
      return `Grep${m.expect === 'absent' ? ' (absent)' : ''}: ${m.pattern}${m.glob ? ` in ${m.glob}` : ''}`;
    case 'READ':
      return `Read: ${m.path}${m.contains ? ` contains ${m.contains}` : ''}`;
    case 'STATIC':
      return `Static: ${m.check}`;
    case 'CUSTOM':
      return `Custom: ${m.description}`;
    case 'BROWSER':
      return `Browser: ${m.scenario}`;
  }
}

function tableHeader(input: SnapshotInput): TableHeader {
  const { run, live } = input;
  let tokens = 0;
  let usd = 0;
  // The input as billed: read from the prompt cache and written to it apart from fresh.
  let cached = 0;
  let written = 0;
  let output = 0;
  for (const e of input.events) {
    tokens += e.inputTokens + e.outputTokens;
    usd += e.costUsd;
    cached += e.cachedInputTokens ?? 0;
    written += e.cacheWriteTokens ?? 0;
    output += e.outputTokens;
  }
  const header: TableHeader = {
    runId: run.id,
    request: run.request,
    effort: run.effort,
    state: run.state,
    phase: run.phase,
    iteration: run.iteration,
    criteriaVersion: run.criteriaVersion,
    finished: isFinished(run.state),
    budget: {
      seconds: { used: Math.round((live?.elapsedMs ?? run.elapsedMs) / 1000), limit: run.budgetSeconds },
      tokens: { used: tokens, ...(input.caps?.tokens !== undefined ? { limit: input.caps.tokens } : {}) },
      usd: { used: Math.round(usd * 10_000) / 10_000, ...(input.caps?.usd !== undefined ? { limit: input.caps.usd } : {}) },
    },
    time: live ? { going: true, waitedMs: live.waitedMs, ...(live.waitingMs !== undefined ? { waitingMs: live.waitingMs } : {}), ...(live.waitingFor ? { waitingFor: live.waitingFor } : {}) } : { going: false, waitedMs: run.waitedMs ?? 0 },
  };
  if (tokens > 0) header.spent = usageLine({ fresh: tokens - output - cached - written, cached, written, output, usd: Math.round(usd * 1e9) / 1e9 });
  if (run.exitReason) header.exitReason = run.exitReason;
  if (run.prdPath) header.prdPath = run.prdPath;
  return header;
}

/**
 * What to send so a view showing `before` shows `after`: one message per changed row, and
 * the header, approvals or abilities only when they changed. An unchanged run sends nothing.
 */
export function tableDeltas(before: TableSnapshot, after: TableSnapshot): TableDelta[] {
  const deltas: TableDelta[] = [];
  if (!same(before.header, after.header)) deltas.push({ type: 'header', header: after.header });
  const old = new Map(before.rows.map((r) => [r.id, r]));
  for (const row of after.rows) if (!same(old.get(row.id), row)) deltas.push({ type: 'row', row });
  const ids = new Set(after.rows.map((r) => r.id));
  for (const id of old.keys()) if (!ids.has(id)) deltas.push({ type: 'rowRemoved', id });
  const order = after.rows.map((r) => r.id);
  if (!same(before.rows.map((r) => r.id), order)) deltas.push({ type: 'order', ids: order });
  if (!same(before.approvals, after.approvals)) deltas.push({ type: 'approvals', approvals: after.approvals });
  if (!same(before.abilities, after.abilities)) deltas.push({ type: 'abilities', abilities: after.abilities });
  if (!same(before.lock, after.lock)) deltas.push({ type: 'lock', lock: after.lock });
  return deltas;
}

/** Applies deltas to a snapshot (the view's model does the same; tests check the two agree). */
export function applyDeltas(snapshot: TableSnapshot, deltas: readonly TableDelta[]): TableSnapshot {
  const rows = new Map(snapshot.rows.map((r) => [r.id, r]));
  let order = snapshot.rows.map((r) => r.id);
  let next: TableSnapshot = { ...snapshot };
  for (const d of deltas) {
    switch (d.type) {
      case 'row':
        if (!rows.has(d.row.id)) order = [...order, d.row.id];
        rows.set(d.row.id, d.row);
        break;
      case 'rowRemoved':
        rows.delete(d.id);
        order = order.filter((id) => id !== d.id);
        break;
      case 'order':
        order = d.ids;
        break;
      case 'header':
        next = { ...next, header: d.header };
        break;
      case 'approvals':
        next = { ...next, approvals: d.approvals };
        break;
      case 'abilities':
        next = { ...next, abilities: d.abilities };
        break;
      case 'lock': {
        const { lock: _gone, ...rest } = next;
        next = d.lock ? { ...rest, lock: d.lock } : rest;
        break;
      }
    }
  }
  return { ...next, rows: order.map((id) => rows.get(id)).filter((r): r is TableRow => r !== undefined) };
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The lock's part of a table snapshot (pure: unit-tested). */
export function tableLock(state: PrdLockState, canAct: boolean, held?: string, agentBlocked?: { reason?: string }): TableLock {
  const revertible = new Set(state.revertible);
  return {
    prdPath: state.prdPath,
    state: state.state,
    ...(state.version !== undefined ? { version: state.version } : {}),
    ...(state.by ? { by: state.by } : {}),
    ...(state.at ? { at: state.at } : {}),
    changes: state.changes.map((c) => ({ id: c.id, what: c.what, summary: c.summary, diff: [...c.diff], revertible: c.what === 'criterion' && revertible.has(c.id) })),
    canAct,
    ...(state.error ? { error: state.error } : {}),
    ...(held ? { held } : {}),
    ...(agentBlocked ? { agentBlocked: agentBlocked.reason ? { reason: agentBlocked.reason } : {} } : {}),
    ...(state.proposals && state.proposals.length > 0 ? { proposals: state.proposals.map((p) => ({ id: p.id, header: p.header, lines: [...p.lines], commands: [...p.commands], ...(p.problem ? { problem: p.problem } : {}) })) } : {}),
  };
}
