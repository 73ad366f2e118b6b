import * as path from 'node:path';
import { exportRunBundle } from '../../agent/bundle';
import { defaultCliStoreFile } from '../../store/store';
import { RUN_COMMAND } from '../runs/definition';
import { withStoredRun } from '../runs/stored-run';
import type { CliIo } from '../shared/io';

/** `ideal-state bundle RUN_ID --out DIR`: a run's manifest, artifacts, PRD, reports and events in a folder. */
export async function bundleCommand(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = RUN_COMMAND.parse(argv, io);
  if (typeof args === 'number') return args;
  const { values: v, positionals } = args;
  const [runId] = positionals;
  const out = v.out;
  if (!runId || !out) return RUN_COMMAND.usageError(io, 'bundle needs RUN_ID and --out DIR');
  const workspace = path.resolve(v.workspace ?? process.cwd());
  return withStoredRun(runId, v.store ? path.resolve(v.store) : defaultCliStoreFile(workspace, env), io, async (store) => {
    const written = await exportRunBundle(store, runId, path.resolve(out), workspace);
    io.out(`bundle written to ${written.folder} (${written.files.length} files)`);
    return 0;
  });
}
