import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { LoopInputError, mergeShards, parseShardFile, renderLoopPrd, specKey, type MergedLoop } from '../app/loop';
import { DEFAULT_PRD_FOLDER } from '../app/defaults';
import type { LoopShardFile } from '../model';
import { writeFileAtomically } from './loop-files';

type Output = { out: (s: string) => void; err: (s: string) => void };

/**
 * `ideal-state loop merge FILE… [--out REPORT] [--prd]`: the shards' results as one report
 * (the same as an unsharded loop's) and, with --prd, one loop PRD in the workspace's PRD folder.
 * Exit 0 when every artifact passes, 1 when one does not, 2 on bad input (a missing, corrupt
 * or foreign shard file).
 */
export async function loopMerge(files: readonly string[], o: { workspace: string; json: boolean; out?: string; prd: boolean }, io: Output): Promise<number> {
  let merged: MergedLoop;
  try {
    if (files.length === 0) throw new LoopInputError('loop merge needs the shard files: ideal-state loop merge shard-1.json shard-2.json …');
    const shards: { name: string; shard: LoopShardFile }[] = [];
    for (const name of files) {
      let text: string;
      try {
        text = await fs.readFile(path.resolve(name), 'utf8');
      } catch {
        throw new LoopInputError(`cannot read the shard file ${name}`);
      }
      shards.push({ name, shard: parseShardFile(name, text) });
    }
    merged = mergeShards(shards);
  } catch (error) {
    if (!(error instanceof LoopInputError)) throw error;
    io.err(`ideal-state loop merge: ${error.message}`);
    if (o.json) io.out(JSON.stringify({ error: { code: error.code, message: error.message } }));
    return 2;
  }
  const { report } = merged;
  if (o.out) await writeFileAtomically(path.resolve(o.out), `${JSON.stringify(report, null, 2)}\n`);
  let prdPath: string | undefined;
  if (o.prd) {
    prdPath = `${DEFAULT_PRD_FOLDER}/loop-merged-${specKey({ ...merged.spec, agents: 1 })}.md`;
    const now = new Date().toISOString();
    const message = `merged ${merged.spec.glob}: ${report.passing}/${report.total} artifacts passing${report.failing.length > 0 ? `; ${report.failing.length} failing: ${report.failing.slice(0, 20).join(', ')}` : ''}`;
    const text = renderLoopPrd({
      loop: {
        id: `loop-merged-${specKey({ ...merged.spec, agents: 1 })}`,
        spec: merged.spec,
        state: merged.state,
        iteration: merged.iteration,
        effort: merged.spec.effort,
        criterionIds: [...merged.criterionIds],
        log: [{ iteration: Math.max(1, merged.iteration), at: now, effort: merged.spec.effort, passing: report.passing, total: report.total, failing: report.failing, message }],
        createdAt: now,
        updatedAt: now,
      },
      artifacts: merged.artifacts.map((a) => ({ file: a.file, status: a.status, outcomes: a.outcomes, ...(a.runId ? { runId: a.runId } : {}) })),
      prdPath,
    });
    await writeFileAtomically(path.join(o.workspace, prdPath), text);
  }
  if (o.json) io.out(JSON.stringify({ state: merged.state, report, out: o.out ?? null, prd: prdPath ?? null }));
  else {
    io.out(`${merged.state}: ${report.passing}/${report.total} artifacts passing`);
    for (const f of report.failing.slice(0, 50)) io.out(`  failing: ${f}`);
    if (o.out) io.out(`report written to ${o.out}`);
    if (prdPath) io.out(`loop PRD written to ${prdPath}`);
  }
  return report.failing.length === 0 ? 0 : 1;
}
