import type { VerifySetResult } from '../../verify/types';
import { redactedInput, redactionNote, terminalText } from './report-escape';

export interface RunFacts {
  effort: string;
  parallelism: number;
  written: boolean;
  /** `pending`: left for the store's next writer (src/store/pending.ts); the run is named when the PRD names it. */
  stored?: { runId?: string; reportId: string; store: string; pending?: true };
  /** What went wrong opening the store (damage moved aside, read-only): `--json` carries it, stderr says it. */
  warnings?: readonly { kind: string; message: string; movedTo?: string }[];
}

/** `--json`: one object; results in PRD order; texts without the credentials this process holds. */
export function formatJson(raw: VerifySetResult, facts: RunFacts): string {
  const set = redacted(raw);
  return JSON.stringify({
    passed: set.passed,
    summary: set.summary,
    counts: set.counts,
    effort: facts.effort,
    parallelism: facts.parallelism,
    written: facts.written,
    ...(facts.stored ? { stored: facts.stored } : {}),
    ...(facts.warnings ? { warnings: facts.warnings } : {}),
    ...(set.commands && set.commands.refused.length > 0 ? { skippedCommands: set.commands.refused } : {}),
    ...(set.redactions ? { redactions: set.redactions } : {}),
    results: set.results.map((r) => ({
      id: r.criterionId,
      outcome: r.outcome,
      evidence: r.evidence,
      durationMs: r.durationMs,
      ...(r.failureLabel ? { failureLabel: r.failureLabel } : {}),
      ...(r.repairTarget ? { repairTarget: r.repairTarget } : {}),
      ...(r.actual !== undefined ? { actual: r.actual } : {}),
      ...(r.threshold !== undefined ? { threshold: r.threshold } : {}),
      ...(r.locations.length > 0 ? { locations: r.locations } : {}),
    })),
  });
}

/**
 * The terminal table: id, outcome, duration, the evidence's first line; then the summary.
 * Every text is the workspace's words: controls are made visible (an ESC never reaches the
 * terminal) and credentials are redacted.
 */
export function formatTable(raw: VerifySetResult, facts: RunFacts): string {
  const set = redacted(raw);
  const t = terminalText;
  const rows = set.results.map((r) => [t(r.criterionId), r.outcome, `${(r.durationMs / 1000).toFixed(1)} s`, t(firstLine(r.evidence))]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length), ['criterion', 'outcome', 'time'][i]!.length));
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)) : c)).join('  ');
  const out = [line(['criterion', 'outcome', 'time', 'evidence']), ...rows.map(line), ''];
  for (const r of set.results.filter((x) => x.outcome !== 'PASS' && x.repairTarget)) out.push(`${t(r.criterionId)} [${r.failureLabel}]: needs: ${t(r.repairTarget!)}`);
  const skipped = set.commands?.refused ?? [];
  if (skipped.length > 0) out.push(`skipped ${skipped.length} command${skipped.length === 1 ? '' : 's'} (not run; ${skipped.length === 1 ? 'its criterion is' : 'their criteria are'} UNKNOWN):`, ...skipped.map((c) => `  ${t(c.command)}: ${t(c.reason)}`));
  out.push(`${set.passed ? 'PASSED' : 'NOT PASSED'}: ${t(set.summary)} (effort ${facts.effort}, ${facts.parallelism} at a time)`);
  const note = redactionNote(set.redactions);
  if (note) out.push(note);
  if (facts.written) out.push('outcomes written back into the PRD');
  if (facts.stored?.pending) out.push(`report ${facts.stored.reportId}${facts.stored.runId ? ` for ${facts.stored.runId}` : ''} left for ${facts.stored.store} (recorded when the store is next opened)`);
  else if (facts.stored) out.push(`report ${facts.stored.reportId} stored for ${facts.stored.runId} in ${facts.stored.store}`);
  return out.join('\n');
}

function redacted(set: VerifySetResult): VerifySetResult {
  return redactedInput({ file: '', set, info: () => undefined, at: new Date(0) }).set;
}

function firstLine(text: string): string {
  const l = text.split('\n')[0] ?? '';
  return l.length > 120 ? `${l.slice(0, 119)}…` : l;
}
