import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { ignoredNotice, needsTrust, NO_TRUST, trustStateOf, type TrustRecords } from '../app/trust';
import { contentHash, readTrustRecords } from './trust-store';

/**
 * How a configuration file came to be used: its content is trusted (`ideal-state trust`),
 * `--trust-workspace` was passed for this invocation (a models file then still names only
 * allowed key variables), or it is not a file that needs trust.
 */
export type ConfigTrust = 'content' | 'flag' | 'not-needed';

export interface ConfigText {
  /** Workspace-relative, as given. */
  readonly file: string;
  readonly text: string;
  readonly trust: ConfigTrust;
}

export interface WorkspaceConfigOptions {
  readonly workspace: string;
  /** The trust records file (cliTrustFile). */
  readonly trustFile: string;
  /** `--trust-workspace`: use the files this once, without a record. */
  readonly trustWorkspace?: boolean;
  /** Each file left out, once, and trust records that cannot be read, once. */
  readonly onNotice: (message: string) => void;
  /** The command that trusts a file, for the notice. */
  readonly trustCommand: (relative: string) => string;
}

/** The key a trust record is filed under: the workspace's real path, then the relative path. */
export async function trustKey(workspace: string, relative: string): Promise<string> {
  const root = await fs.realpath(workspace).catch(() => path.resolve(workspace));
  return path.join(root, ...relative.split('/'));
}

/**
 * The workspace's configuration files as the command line may use them: a file that needs
 * trust and is not trusted (or changed since) reads as absent, with a notice saying how to
 * trust it. The bytes hashed are the bytes returned, so nothing can change in between.
 */
export class WorkspaceConfig {
  private records: Promise<TrustRecords> | undefined;
  private readonly told = new Set<string>();

  constructor(private readonly o: WorkspaceConfigOptions) {}

  async read(relative: string): Promise<ConfigText | undefined> {
    let bytes: Buffer;
    try {
      bytes = await fs.readFile(path.join(this.o.workspace, ...relative.split('/')));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.tell(relative, `ignored ${relative} (cannot read it: ${(error as Error).message})`);
      return undefined;
    }
    const text = bytes.toString('utf8');
    if (!needsTrust(relative)) return { file: relative, text, trust: 'not-needed' };
    if (this.o.trustWorkspace) {
      this.tell(relative, `using ${relative} without a trust record, for this invocation only (--trust-workspace)`);
      return { file: relative, text, trust: 'flag' };
    }
    const state = trustStateOf(await this.trustRecords(), await trustKey(this.o.workspace, relative), contentHash(bytes));
    if (state === 'trusted') return { file: relative, text, trust: 'content' };
    this.tell(relative, ignoredNotice(relative, state, this.o.trustCommand(relative)));
    return undefined;
  }

  private trustRecords(): Promise<TrustRecords> {
    this.records ??= readTrustRecords(this.o.trustFile).catch((error: unknown) => {
      this.tell('', `${error instanceof Error ? error.message : String(error)}; workspace configuration that needs trust is ignored`);
      return NO_TRUST;
    });
    return this.records;
  }

  private tell(key: string, message: string): void {
    if (this.told.has(key)) return;
    this.told.add(key);
    this.o.onNotice(message);
  }
}
