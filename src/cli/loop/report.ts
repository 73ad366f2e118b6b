import type { LoopResult } from '../../app/loop';
import type { storeWarningsJson } from '../../app/store-warnings';
import type { CliIo } from '../shared/io';

/** How a loop ended: one JSON object with `--json`, else its state, how many artifacts pass, and the first unmet ones. */
export function reportLoop(result: LoopResult, json: boolean, io: Pick<CliIo, 'out'>, warnings: ReturnType<typeof storeWarningsJson>, out: string | undefined): void {
  const { loop } = result;
  if (json) {
    io.out(JSON.stringify({ loopId: loop.id, state: loop.state, reason: loop.reason ?? null, iteration: loop.iteration, effort: loop.effort, total: loop.total, passing: loop.passing, unmet: result.unmet, prd: loop.prdPath ?? null, out: out ?? null, report: result.report, warnings }));
    return;
  }
  io.out(`${loop.state}${loop.reason ? `: ${loop.reason}` : ''}`);
  io.out(`loop ${loop.id}: ${loop.passing}/${loop.total} artifacts passing${loop.prdPath ? `, PRD ${loop.prdPath}` : ''}${out ? `, results in ${out}` : ''}`);
  for (const f of result.unmet.slice(0, 50)) io.out(`  unmet: ${f}`);
  if (result.unmet.length > 50) io.out(`  … and ${result.unmet.length - 50} more`);
}
