import * as path from 'node:path';
import { defaultCliStoreFile } from '../../store/store';
import { RUN_COMMAND } from '../runs/definition';
import { startRun } from '../runs/start';
import { USAGE_EXIT } from '../shared/command';
import type { CliIo } from '../shared/io';

/** `ideal-state run …`; `argv` follows `run`. */
export async function runCommand(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const args = RUN_COMMAND.parse(argv, io);
  if (typeof args === 'number') return args;
  const { values: v, positionals } = args;
  const request = positionals.join(' ').trim();
  if (!v.resume && !request && !v.prd) return RUN_COMMAND.usageError(io, 'run needs a request in quotes, --prd FILE or --resume RUN_ID');
  const approve = new Set((v.approve ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  for (const a of approve) {
    if (a === 'config' || a === 'configuration') {
      // Not a blanket flag on purpose: each change to a file that steers what runs is the person's to approve.
      io.err('ideal-state: --approve cannot approve configuration changes (.vscode, .ideal-state, package.json scripts, git hooks, CI…): each one is asked on the terminal and denied without one; .git is never written');
      return USAGE_EXIT;
    }
    if (a !== 'edits' && a !== 'commands') {
      io.err(`ideal-state: --approve takes "edits", "commands" or "edits,commands", not "${a}"`);
      return USAGE_EXIT;
    }
  }
  const workspace = path.resolve(v.workspace ?? process.cwd());
  return startRun(
    {
      workspace,
      storeFile: v.store ? path.resolve(v.store) : defaultCliStoreFile(workspace, env),
      request,
      approve,
      json: v.json === true,
      trustWorkspace: v['trust-workspace'] === true,
      models: { ...(v.provider !== undefined ? { provider: v.provider } : {}), ...(v.script !== undefined ? { script: v.script } : {}), ...(v.model !== undefined ? { model: v.model } : {}) },
      ...(v.prd !== undefined ? { prd: v.prd } : {}),
      ...(v.effort !== undefined ? { effort: v.effort } : {}),
      ...(v.resume !== undefined ? { resume: v.resume } : {}),
    },
    io,
    env,
  );
}
