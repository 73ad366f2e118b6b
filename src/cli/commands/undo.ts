import * as path from 'node:path';
import { undoRunChanges } from '../../agent/checkpoint';
import { NodeWorkspace } from '../../agent/node-workspace';
import { StoreRunStorage } from '../../algorithm/store-run-storage';
import { storeWarningsJson } from '../../app/store-warnings';
import { defaultCliStoreFile } from '../../store/store';
import { RUN_COMMAND } from '../runs/definition';
import { withStoredRun } from '../runs/stored-run';
import type { CliIo } from '../shared/io';

/** `ideal-state undo RUN_ID`: every file the run changed (its PRD too) put back as it was before. */
export async function undoCommand(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = RUN_COMMAND.parse(argv, io);
  if (typeof args === 'number') return args;
  const { values: v, positionals } = args;
  const [runId] = positionals;
  if (!runId) return RUN_COMMAND.usageError(io, 'undo needs RUN_ID');
  const workspace = path.resolve(v.workspace ?? process.cwd());
  return withStoredRun(runId, v.store ? path.resolve(v.store) : defaultCliStoreFile(workspace, env), io, async (store) => {
    const { changed, left } = await undoRunChanges(new StoreRunStorage(store).checkpoints(runId), new NodeWorkspace(workspace));
    // A file edited after the run (its PRD) is left as it is, and said so.
    if (v.json) io.out(JSON.stringify({ runId, restored: changed, left, warnings: storeWarningsJson(store) }));
    else {
      io.out(changed.length > 0 ? `restored ${changed.length} file(s): ${changed.join(', ')}` : left.length > 0 ? 'no file restored' : 'the run changed no files');
      for (const l of left) io.err(`ideal-state: ${l.path} not restored: ${l.reason}`);
    }
    return 0;
  });
}
