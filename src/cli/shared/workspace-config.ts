import * as path from 'node:path';
import { shellWord } from '../../app/gate/held';
import { cliTrustFile } from '../../node/trust-store';
import { WorkspaceConfig } from '../../node/workspace-config';
import type { CliIo } from './io';

/**
 * The workspace's configuration as `run` and `models check` may use it, telling the user on
 * standard error what it left out and the command that trusts it.
 */
export function cliWorkspaceConfig(workspace: string, env: NodeJS.ProcessEnv, trustWorkspace: boolean, io: Pick<CliIo, 'err'>): WorkspaceConfig {
  return new WorkspaceConfig({
    workspace,
    trustFile: cliTrustFile(env),
    trustWorkspace,
    onNotice: (message) => io.err(`warning: ${message}`),
    trustCommand: (relative) => trustCommandFor(workspace, relative),
  });
}

/** The command a user runs to trust a file, with `--workspace` unless it is the current folder. */
export function trustCommandFor(workspace: string, relative: string): string {
  const elsewhere = path.resolve(workspace) !== process.cwd();
  return `ideal-state trust ${relative}${elsewhere ? ` --workspace ${shellWord(path.resolve(workspace))}` : ''}`;
}
