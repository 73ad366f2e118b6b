import type { RunResult } from '../../algorithm/engine';
import type { storeWarningsJson } from '../../app/store-warnings';
import { usageLine, type RunUsage } from '../../llm/usage';
import type { CliIo } from '../shared/io';

/** How a run ended: one JSON object with `--json`, else its state, each criterion's outcome, and what it spent. */
export function reportRun(result: RunResult, json: boolean, io: Pick<CliIo, 'out'>, warnings: ReturnType<typeof storeWarningsJson>, usage: RunUsage): void {
  const byId = new Map((result.report?.results ?? []).map((r) => [r.criterionId, r]));
  if (json) {
    io.out(
      JSON.stringify({
        runId: result.run.id,
        state: result.state,
        reason: result.reason ?? null,
        effort: result.run.effort,
        iterations: result.run.iteration,
        prd: result.run.prdPath ?? null,
        criteria: result.criteria.map((c) => ({ id: c.id, kind: c.kind, text: c.text, priority: c.priority, status: c.status, outcome: byId.get(c.id)?.outcome ?? null, evidence: byId.get(c.id)?.evidence ?? null, failureLabel: byId.get(c.id)?.failureLabel ?? null })),
        unmet: result.unmet.map((c) => c.id),
        bestReportId: result.bestReportId ?? null,
        // Tokens (fresh, cached, written, output) and dollars, for the run and each phase.
        usage,
        warnings,
      }),
    );
    return;
  }
  io.out(`${result.state}${result.reason ? `: ${result.reason}` : ''}`);
  for (const c of result.criteria) io.out(`  ${(byId.get(c.id)?.outcome ?? '—').padEnd(7)} ${c.id}: ${c.text}`);
  io.out(`run ${result.run.id}${result.run.prdPath ? `, PRD ${result.run.prdPath}` : ''}`);
  io.out(`spent ${usageLine(usage)}`);
}
