import type { VerifySetResult } from '../verify/types';

export interface RunFacts {
  effort: string;
  parallelism: number;
  written: boolean;
  stored?: { runId: string; reportId: string; store: string };
  /** What went wrong opening the store (damage moved aside, read-only): `--json` carries it, stderr says it. */
  warnings?: readonly { kind: string; message: string; movedTo?: string }[];
}

/** `--json`: one object; results in PRD order. */
export function formatJson(set: VerifySetResult, facts: RunFacts): string {
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

/** The terminal table: id, outcome, duration, the evidence's first line; then the summary. */
export function formatTable(set: VerifySetResult, facts: RunFacts): string {
  const rows = set.results.map((r) => [r.criterionId, r.outcome, `${(r.durationMs / 1000).toFixed(1)} s`, firstLine(r.evidence)]);
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i]!.length), ['criterion', 'outcome', 'time'][i]!.length));
  const line = (cells: string[]) => cells.map((c, i) => (i < 3 ? (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)) : c)).join('  ');
  const out = [line(['criterion', 'outcome', 'time', 'evidence']), ...rows.map(line), ''];
  for (const r of set.results.filter((x) => x.outcome !== 'PASS' && x.repairTarget)) out.push(`${r.criterionId} [${r.failureLabel}]: needs: ${r.repairTarget}`);
  const skipped = set.commands?.refused ?? [];
  if (skipped.length > 0) out.push(`skipped ${skipped.length} command${skipped.length === 1 ? '' : 's'} (not run; ${skipped.length === 1 ? 'its criterion is' : 'their criteria are'} UNKNOWN):`, ...skipped.map((c) => `  ${c.command}: ${c.reason}`));
  out.push(`${set.passed ? 'PASSED' : 'NOT PASSED'}: ${set.summary} (effort ${facts.effort}, ${facts.parallelism} at a time)`);
  if (facts.written) out.push('outcomes written back into the PRD');
  if (facts.stored) out.push(`report ${facts.stored.reportId} stored for ${facts.stored.runId} in ${facts.stored.store}`);
  return out.join('\n');
}

function firstLine(text: string): string {
  const l = text.split('\n')[0] ?? '';
  return l.length > 120 ? `${l.slice(0, 119)}…` : l;
}
