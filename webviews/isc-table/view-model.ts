import type { EvidenceLocation, SortKey, TableFilter, TableRow } from './protocol';

export const ALL_ROWS: TableFilter = { outcome: 'ALL', priority: 'ALL', domain: 'ALL', text: '' };

export function matchesFilter(row: TableRow, filter: TableFilter): boolean {
  if (filter.outcome !== 'ALL' && (filter.outcome === 'NONE' ? row.outcome !== undefined : row.outcome !== filter.outcome)) return false;
  if (filter.priority !== 'ALL' && row.priority !== filter.priority) return false;
  if (filter.domain !== 'ALL' && (row.domain ?? '') !== filter.domain) return false;
  const text = filter.text.trim().toLowerCase();
  if (text && !`${row.id} ${row.text} ${row.verify ?? ''} ${row.domain ?? ''}`.toLowerCase().includes(text)) return false;
  return true;
}

const PRIORITY_RANK: Record<string, number> = { CRITICAL: 0, IMPORTANT: 1, NICE: 2 };
// Problems first when sorting by outcome: what needs attention is at the top.
const OUTCOME_RANK: Record<string, number> = { FAIL: 0, PARTIAL: 1, UNKNOWN: 2, NONE: 3, PASS: 4 };
const STATUS_RANK: Record<string, number> = { ACTIVE: 0, BLOCKED: 1, PENDING: 2, ADJUSTED: 3, DONE: 4 };

const isDigit = (c: number) => c >= 48 && c <= 57;
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/**
 * Natural order — runs of digits compare as numbers (ISC-2 before ISC-10), letters without
 * case — in plain code: Intl (a Collator, localeCompare, toLocaleString) loads ICU data on
 * first use, tens of milliseconds that a fresh webview would pay before its first frame.
 */
export function naturalCompare(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(j);
    if (isDigit(ca) && isDigit(cb)) {
      let si = i;
      let sj = j;
      while (a.charCodeAt(si) === 48) si++;
      while (b.charCodeAt(sj) === 48) sj++;
      let ei = si;
      let ej = sj;
      while (ei < a.length && isDigit(a.charCodeAt(ei))) ei++;
      while (ej < b.length && isDigit(b.charCodeAt(ej))) ej++;
      // Without leading zeros, a longer number is a bigger one; the same length compares digit by digit.
      if (ei - si !== ej - sj) return ei - si - (ej - sj);
      for (let k = 0; k < ei - si; k++) {
        const d = a.charCodeAt(si + k) - b.charCodeAt(sj + k);
        if (d !== 0) return d;
      }
      i = ei;
      j = ej;
      continue;
    }
    const d = lower(ca) - lower(cb);
    if (d !== 0) return d;
    i++;
    j++;
  }
  const rest = a.length - i - (b.length - j);
  return rest !== 0 ? rest : a < b ? -1 : a > b ? 1 : 0;
}

/** Criteria before anti-criteria, then by the number in the id (ISC-2 before ISC-10). */
export function compareIds(a: TableRow, b: TableRow): number {
  if (a.kind !== b.kind) return a.kind === 'criterion' ? -1 : 1;
  return naturalCompare(a.id, b.id);
}

export function compareRows(key: SortKey, a: TableRow, b: TableRow): number {
  const by = (x: number, y: number) => x - y;
  let order = 0;
  switch (key) {
    case 'priority':
      order = by(PRIORITY_RANK[a.priority] ?? 9, PRIORITY_RANK[b.priority] ?? 9);
      break;
    case 'outcome':
      order = by(OUTCOME_RANK[a.outcome ?? 'NONE'] ?? 9, OUTCOME_RANK[b.outcome ?? 'NONE'] ?? 9);
      break;
    case 'status':
      order = by(STATUS_RANK[a.status] ?? 9, STATUS_RANK[b.status] ?? 9);
      break;
    case 'duration':
      order = by(a.durationMs ?? -1, b.durationMs ?? -1);
      break;
    case 'domain':
      order = naturalCompare(a.domain ?? '', b.domain ?? '');
      break;
    case 'id':
      break;
  }
  return order !== 0 ? order : compareIds(a, b);
}

/** The ids to show, in order: filtered, then sorted (ties by id, so the order is stable). */
export function visibleRows(rows: Iterable<TableRow>, filter: TableFilter, sort: { key: SortKey; descending: boolean }): TableRow[] {
  const shown = [...rows].filter((r) => matchesFilter(r, filter));
  const order = (a: TableRow, b: TableRow) => (sort.descending ? -1 : 1) * compareRows(sort.key, a, b);
  // Rows mostly arrive in order already (the host sends them by id): one pass to see that is
  // cheaper than a sort, and gives the same order (the sort is stable).
  for (let i = 1; i < shown.length; i++) {
    if (order(shown[i - 1]!, shown[i]!) > 0) return shown.sort(order);
  }
  return shown;
}

export type EvidencePart = { text: string } | { text: string; location: EvidenceLocation };

/**
 * Evidence as text with its `file:line` mentions marked as links: a relative path with an
 * extension followed by `:<line>` (optionally `:<column>`). Paths that are absolute or
 * climb out with `..` stay plain text — the host would refuse them anyway.
 */
export function evidenceParts(evidence: string): EvidencePart[] {
  const parts: EvidencePart[] = [];
  const pattern = /(?<![\w./\\-])((?:[\w.-]+\/)*[\w.-]+\.[A-Za-z0-9]+):(\d+)(?::\d+)?/g;
  let last = 0;
  for (const m of evidence.matchAll(pattern)) {
    const file = m[1]!;
    const line = Number(m[2]);
    if (file.split('/').includes('..') || line < 1) continue;
    if (m.index > last) parts.push({ text: evidence.slice(last, m.index) });
    parts.push({ text: m[0], location: { file, line } });
    last = m.index + m[0].length;
  }
  if (last < evidence.length) parts.push({ text: evidence.slice(last) });
  return parts;
}

/** 4000000 → `4,000,000` (what toLocaleString('en') gives, without loading ICU; see naturalCompare). */
export function formatCount(n: number): string {
  const [whole = '', fraction] = String(Math.abs(n)).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',');
  return `${n < 0 ? '-' : ''}${grouped}${fraction ? `.${fraction}` : ''}`;
}

export function formatDuration(ms: number | undefined): string {
  if (ms === undefined) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.round((ms % 60_000) / 1000);
  return seconds === 0 ? `${minutes} min` : `${minutes}m ${seconds}s`;
}

/** The marker of a probed row (issue 28 §5): words, never colour alone; the title says it whole. */
export const PROBE_MARK = { text: 'passes before any work?', title: 'Probe: passes before any work — can this check fail?' } as const;

const OUTCOME_CLASS: Record<string, string> = { PASS: 'pass', FAIL: 'fail', PARTIAL: 'warn', UNKNOWN: 'unknown' };

/** What a row shows, as strings and classes: everything rows.ts puts into a row's cells. */
export interface RowView {
  /** Classes of the row element. */
  rowClass: string;
  anti: boolean;
  priorityClass: string;
  statusClass: string;
  /** The verify method, or `none` (then `verifyMissing`). */
  verify: string;
  verifyMissing: boolean;
  /** The verdict's badge; no badge before the first verification. */
  outcome: { word: string; badgeClass: string; stale: boolean } | undefined;
  duration: string;
  claimedBy: string;
  /** A probed row's marker, or undefined. */
  probe: typeof PROBE_MARK | undefined;
}

export function rowView(row: TableRow, expanded: boolean): RowView {
  const outcome = row.outcome ?? 'none';
  return {
    rowClass: `row${row.kind === 'anti-criterion' ? ' anti' : ''} outcome-${outcome.toLowerCase()}${row.stale ? ' stale' : ''}${row.probed ? ' probed' : ''}${expanded ? ' expanded' : ''}`,
    anti: row.kind === 'anti-criterion',
    priorityClass: `prio ${row.priority.toLowerCase()}`,
    statusClass: `status ${row.status.toLowerCase()}`,
    verify: row.verify ?? 'none',
    verifyMissing: !row.verify,
    outcome: row.outcome ? { word: row.outcome, badgeClass: `badge outcome ${OUTCOME_CLASS[row.outcome] ?? ''}`.trimEnd(), stale: row.stale } : undefined,
    duration: formatDuration(row.durationMs),
    claimedBy: row.claimedBy ?? '',
    probe: row.probed ? PROBE_MARK : undefined,
  };
}

/** The words for a PRD the agent stopped on through the honest exit (status BLOCKED): never done, in the agent's words. */
export function agentBlockedWords(blocked: { reason?: string }): string {
  return `the agent said it cannot finish and needs a person${blocked.reason ? `: "${blocked.reason}"` : ''}; not done`;
}
