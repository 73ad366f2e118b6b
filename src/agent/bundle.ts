import * as crypto from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Store } from '../store/store';
import { runUsage } from '../llm/usage';
import { confinePath } from './workspace';

export interface BundleResult {
  readonly folder: string;
  /** Bundle-relative paths of the files written, artifacts.json last. */
  readonly files: readonly string[];
}

const sha256 = (data: string | Buffer) => crypto.createHash('sha256').update(data).digest('hex');

/**
 * Export Run Bundle: a folder for sharing or auditing a run —
 * `manifest.json` (run id, criteria version, timestamps, exit state), the PRD, the
 * criteria, the verification reports, the run events, and `artifacts.json` with the
 * SHA-256 of every file in the bundle and of each workspace file the run changed.
 */
export async function exportRunBundle(store: Store, runId: string, outDir: string, workspace: string): Promise<BundleResult> {
  const run = store.runs.get(runId);
  if (!run) throw new Error(`no run ${runId}`);
  const folder = path.join(outDir, runId);
  await fs.mkdir(folder, { recursive: true });
  const files = new Map<string, string>();
  const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;
  files.set(
    'manifest.json',
    json({
      format: 'ideal-state-run-bundle',
      version: 1,
      runId: run.id,
      request: run.request,
      effort: run.effort,
      state: run.state,
      exitReason: run.exitReason ?? null,
      criteriaVersion: run.criteriaVersion,
      iteration: run.iteration,
      createdAt: run.createdAt,
      startedAt: run.startedAt ?? null,
      finishedAt: run.finishedAt ?? null,
      // A loop's sub-run is started by whoever started the loop: a person, or a schedule by name.
      startedBy: loopStarter(store, run.id),
      // Tokens (fresh, cached, written, output) and dollars, for the run and each phase.
      usage: runUsage(store.events.where('run_id = ?', [runId], 'seq')),
      generatedAt: new Date().toISOString(),
    }),
  );
  files.set('criteria.json', json(store.criteria.list(runId, run.criteriaVersion)));
  files.set('reports.json', json(store.reports.where('run_id = ?', [runId], 'iteration, created_at')));
  files.set('decisions.json', json(store.decisions.where('run_id = ?', [runId], 'at, id')));
  files.set('events.jsonl', store.events.where('run_id = ?', [runId], 'seq').map((e) => JSON.stringify(e)).join('\n') + '\n');
  if (run.prdPath) {
    const text = await fs.readFile(path.join(workspace, confinePath(run.prdPath)), 'utf8').catch(() => undefined);
    if (text !== undefined) files.set('prd.md', text);
  }
  for (const [name, text] of files) await fs.writeFile(path.join(folder, name), text, 'utf8');
  const changed: { path: string; sha256: string | null }[] = [];
  for (const c of store.checkpoints.where('run_id = ?', [runId], 'path')) {
    const data = await fs.readFile(path.join(workspace, confinePath(c.path))).catch(() => undefined);
    changed.push({ path: c.path, sha256: data ? sha256(data) : null });
  }
  const artifacts = {
    bundle: [...files].map(([name, text]) => ({ path: name, sha256: sha256(text), bytes: Buffer.byteLength(text) })),
    workspaceChanges: changed,
  };
  await fs.writeFile(path.join(folder, 'artifacts.json'), json(artifacts), 'utf8');
  return { folder, files: [...files.keys(), 'artifacts.json'] };
}

function loopStarter(store: Store, runId: string): { who: string; schedule?: string } | null {
  const of = store.loops.loopOfRun(runId);
  return of ? store.loops.get(of.loopId)?.startedBy ?? { who: 'person' } : null;
}
