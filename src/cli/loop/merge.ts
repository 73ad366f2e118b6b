import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { checkShardSet, listArtifacts, LoopInputError, mergeShards, parseShardFile, renderLoopPrd, specKey, type MergedLoop } from '../../app/loop';
import { DEFAULT_PRD_FOLDER } from '../../app/defaults';
import type { LoopShardFile } from '../../model';
import type { LoopStartedBy } from '../../model/loop';
import { loadDefinitions } from '../../model/definitions';
import { templateCriteria } from '../../model/isc-registry';
import { MAX_SHARDS } from '../../model/loop';
import { SETTINGS } from '../../model/settings';
import { nodeTextFiles } from '../../node/node-text-files';
import { hashFiles, writeFileAtomically } from './files';

/** The largest shard file read (a shard of 100,000 artifacts with clipped evidence is well under it). */
export const MAX_SHARD_FILE_BYTES = 64 * 1024 * 1024;

type Output = { out: (s: string) => void; err: (s: string) => void };

/**
 * `ideal-state loop merge FILE… [--out REPORT] [--prd]`: the shards' results as one report
 * (the same as an unsharded loop's) and, with --prd, one loop PRD in the workspace's PRD folder.
 * Exit 0 when every artifact passes, 1 when one does not, 2 on bad input (a missing, corrupt,
 * foreign or forged shard file: merge.ts says what a merge checks), naming the file and field.
 */
export async function loopMerge(files: readonly string[], o: { workspace: string; json: boolean; out?: string; prd: boolean; startedBy?: LoopStartedBy }, io: Output): Promise<number> {
  let merged: MergedLoop;
  try {
    if (files.length === 0) throw new LoopInputError('loop merge needs the shard files: ideal-state loop merge shard-1.json shard-2.json …');
    if (files.length > MAX_SHARDS) throw new LoopInputError(`loop merge takes at most ${MAX_SHARDS} shard files, not ${files.length}`);
    const shards: { name: string; shard: LoopShardFile }[] = [];
    for (const name of files) shards.push({ name, shard: parseShardFile(name, await readShard(name)) });
    checkShardSet(shards);
    merged = mergeShards(shards, await checkoutOf(o.workspace, shards[0]!));
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
        ...(o.startedBy ? { startedBy: o.startedBy } : {}),
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

/** A shard file's text, its size bounded before it is read. */
async function readShard(name: string): Promise<string> {
  let size: number;
  try {
    const stat = await fs.stat(path.resolve(name));
    if (!stat.isFile()) throw new LoopInputError(`${name}: not a file; give the shard files (ideal-state loop --shard I/N --out FILE)`);
    size = stat.size;
  } catch (error) {
    if (error instanceof LoopInputError) throw error;
    throw new LoopInputError(`cannot read the shard file ${name}`);
  }
  if (size > MAX_SHARD_FILE_BYTES) throw new LoopInputError(`${name}: (file): ${size} bytes, over the ${MAX_SHARD_FILE_BYTES / 1024 / 1024} MiB a shard file may have; give the file a shard wrote`);
  try {
    return await fs.readFile(path.resolve(name), 'utf8');
  } catch {
    throw new LoopInputError(`cannot read the shard file ${name}`);
  }
}

/** What the merging job's own checkout says: the glob's artifacts, their content hashes, the template's criteria. */
async function checkoutOf(workspace: string, first: { name: string; shard: LoopShardFile }) {
  const { glob, isc } = first.shard.spec;
  const definitions = await loadDefinitions(nodeTextFiles, {
    shippedIscDir: path.join(__dirname, '..', 'isc-definitions'),
    workspaceIscDir: path.join(workspace, SETTINGS.iscDefinitionsFolder.default),
    effortOverrideFile: path.join(workspace, SETTINGS.effortLevelsFile.default),
  });
  const definition = definitions.isc.get(isc)?.definition;
  if (!definition) throw new LoopInputError(`${first.name}: spec.isc: there is no ISC template "${isc}" in ${workspace}; merge in a checkout of the workspace the shards ran in (--workspace DIR)`);
  let listed: string[];
  try {
    listed = await listArtifacts(workspace, glob);
  } catch (error) {
    throw new LoopInputError(`${first.name}: spec.glob: ${(error as Error).message}; merge in a checkout of the workspace the shards ran in (--workspace DIR)`);
  }
  const criteria = templateCriteria(definition, new Date(0).toISOString()).map((c) => ({ id: c.id, priority: c.priority }));
  return { listed, hashes: await hashFiles(workspace, listed), criteria };
}
