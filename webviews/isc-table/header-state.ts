import { runStateLabel } from '../../src/model/labels';
import { verdictOf } from '../../src/model/verdict';
import type { TableHeader, TableRow } from './protocol';
import { agentBlockedWords } from './view-model';

/** What the header says about the run, computed from the rows it shows (pure, unit-tested). */
export interface HeaderStatus {
  /** The badge's word: the run's state, or what the rows say instead when they contradict it. */
  word: string;
  /** `pass`, `fail`, `warn`, `info` or '' (the badge's colour). */
  tone: string;
  /** The run's stored state (data-state), whatever the badge says. */
  runState: string;
  /** The line beside the badge: the run's exit reason only while the rows still bear it out. */
  reason?: string;
  /** Rows whose verdict is PASS and still current (not stale). */
  pass: number;
  /** PASS rows a change made stale: shown apart, never counted as passing. */
  stale: number;
  total: number;
  /** "3 / 5 pass · 1 stale". */
  score: string;
}

const STATE_TONE: Record<string, string> = {
  RUNNING: 'info',
  PENDING: '',
  NEEDS_APPROVAL: 'warn',
  COMPLETE: 'pass',
  BUDGET_EXHAUSTED: 'warn',
  BLOCKED: 'warn',
  CANCELLED: '',
  FAILED: 'fail',
};

/** At most this many ids are named in the reason; the rest are counted. */
const NAMED = 3;

/**
 * The header's state and counts from the rows as shown. A run that ended COMPLETE was true
 * when it ended ("every CRITICAL criterion verified PASS"); a re-verify that FAILs a row, a
 * change that makes a PASS stale, or a criterion with no verdict since make that untrue now,
 * and the header then says so instead of repeating the old claim. Stale PASS rows are never
 * counted as passing. A PRD the agent stopped on through the honest exit is BLOCKED, never done.
 */
export function headerStatus(header: Pick<TableHeader, 'state' | 'exitReason'>, shown: Iterable<TableRow>, agentBlocked?: { reason?: string }): HeaderStatus {
  const rows = [...shown];
  // The one rule for "passed" (src/model/verdict.ts): the count and the green badge follow it.
  const verdict = verdictOf(rows);
  const { pass, total } = verdict;
  let stale = 0;
  const failing: string[] = [];
  const unverified: string[] = [];
  const staleCritical: string[] = [];
  for (const row of rows) {
    if (row.stale) stale++;
    if (row.priority !== 'CRITICAL') continue;
    // A stale result (any outcome, issue 28 §9) says nothing about now: re-verify, not "does not pass".
    if (row.stale && row.outcome !== undefined) staleCritical.push(row.id);
    else if (row.outcome === undefined) unverified.push(row.id);
    else if (row.outcome !== 'PASS') failing.push(row.id);
  }
  const score = `${pass} / ${total} pass${stale > 0 ? ` · ${stale} stale` : ''}`;
  const status: HeaderStatus = { word: stateBadge(header.state), tone: STATE_TONE[header.state] ?? '', runState: header.state, pass, stale, total, score };
  // The agent stopped through the honest exit (its PRD says BLOCKED): whatever the run said, not done.
  // A run that ended BLOCKED itself (a person denied its commands) wrote that status: its own reason says why.
  if (agentBlocked && header.state !== 'BLOCKED') return { ...status, word: 'BLOCKED', tone: 'fail', reason: agentBlockedWords(agentBlocked) };
  if (header.state !== 'COMPLETE') {
    if (header.exitReason) status.reason = header.exitReason;
    return status;
  }
  // COMPLETE claims every CRITICAL row passes; the rows decide whether that still holds.
  if (total === 0) return { ...status, word: 'NOT VERIFIED', tone: 'warn', reason: 'ended COMPLETE, but the run shows no criteria now' };
  if (failing.length > 0) return { ...status, word: 'FAILING', tone: 'fail', reason: `ended COMPLETE; CRITICAL ${name(failing)} ${failing.length === 1 ? 'does' : 'do'} not pass now` };
  if (unverified.length > 0) return { ...status, word: 'NOT VERIFIED', tone: 'warn', reason: `ended COMPLETE; CRITICAL ${name(unverified)} ${unverified.length === 1 ? 'has' : 'have'} no verdict since` };
  if (staleCritical.length > 0) return { ...status, word: 'STALE', tone: 'warn', reason: `ended COMPLETE; CRITICAL ${name(staleCritical)} ${staleCritical.length === 1 ? 'changed since its verdict: verify it' : 'changed since their verdicts: verify them'} again` };
  if (!verdict.passed) return { ...status, word: 'NOT PASSING', tone: 'warn', reason: `ended COMPLETE; CRITICAL ${name(verdict.blocking)} ${verdict.blocking.length === 1 ? 'does' : 'do'} not pass now` };
  if (header.exitReason) status.reason = header.exitReason;
  return status;
}

function name(ids: readonly string[]): string {
  const shown = ids.slice(0, NAMED).join(', ');
  return ids.length > NAMED ? `${shown} and ${ids.length - NAMED} more` : shown;
}

/** A run state as the header's badge says it: the label table's words, in capitals. */
export function stateBadge(state: string): string {
  return runStateLabel(state).toUpperCase();
}
