import * as path from 'node:path';

/**
 * The pure parts of "Install the Done Gate for…": which hosts to offer and in what order, which
 * Node the hook runs, the command line given to the bundled CLI, and what the confirmation says.
 * No `vscode` here, so the unit tier tests it in plain Node.
 */

/** What the pick needs of a host adapter (src/app/gate/hosts), loaded through the engine bundle. */
export interface GateHostInfo {
  id: string;
  name: string;
  /** The host's configuration folder in a workspace: `gate install --detect` installs where it exists. */
  configFolder: string;
  /** The settings file the hook goes to, or undefined when the host runs no stop hook. */
  hookFile: string | undefined;
  /** Why not, for a host without a stop hook. */
  noHookWhy?: string;
}

export interface HostRow {
  id: string;
  label: string;
  description: string;
  detail: string;
  detected: boolean;
}

/**
 * The hosts as the pick shows them: those whose configuration folder is in the workspace first
 * (the same rule as `gate install --detect`), marked; then the others that can run a stop hook;
 * hosts without one are left out (installing would write only an MCP entry, which the CLI says).
 */
export function hostRows(hosts: readonly GateHostInfo[], present: ReadonlySet<string>): HostRow[] {
  const rows = hosts
    .filter((h) => h.hookFile !== undefined)
    .map((h) => {
      const detected = present.has(h.id);
      return {
        id: h.id,
        label: h.name,
        description: detected ? `$(check) found ${h.configFolder}/ in this workspace` : `no ${h.configFolder}/ in this workspace`,
        detail: `writes the stop hook into ${h.hookFile}`,
        detected,
      };
    });
  return [...rows.filter((r) => r.detected), ...rows.filter((r) => !r.detected)];
}

export type HookNode = { ok: true; node: string; why: string } | { ok: false; message: string };

/**
 * The Node the written hook runs, by absolute path (the CLI writes the path of the Node that
 * runs it). The extension host's own executable is Node on a remote or web host (code-server,
 * SSH, WSL), but on the desktop it is the editor's Electron binary, which starts the editor and
 * not Node unless ELECTRON_RUN_AS_NODE is set: a host runs the hook without it. So there the
 * first `node` on PATH is used, and none is a refusal that says what to do.
 */
export function hookNode(runtime: { execPath: string; electron: string | undefined; pathVar: string; isFile: (file: string) => boolean; platform?: NodeJS.Platform }): HookNode {
  if (runtime.electron === undefined) return { ok: true, node: runtime.execPath, why: 'the Node running the extension host' };
  const names = (runtime.platform ?? process.platform) === 'win32' ? ['node.exe'] : ['node'];
  for (const dir of runtime.pathVar.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue;
    for (const name of names) {
      const file = path.join(dir, name);
      if (runtime.isFile(file)) return { ok: true, node: file, why: `the first Node on PATH (the editor's own executable is not Node outside it)` };
    }
  }
  return { ok: false, message: 'No Node on PATH: the hook needs Node 20 or later to run the gate, and the editor\'s own executable is not Node outside the editor. Install Node, then run this again (or install the command line: npm install -g ideal-state, then ideal-state gate install <host>).' };
}

export type GateScope = 'workspace' | 'user';

/** Whether the bundled CLI takes `--scope` (its usage says so): the user-level choice is offered only then. */
export function cliTakesScope(usage: string): boolean {
  return /^\s*--scope\b/m.test(usage);
}

/** The bundled CLI's arguments: a preview (no --yes: the CLI prints the changes and, with no terminal to ask, writes nothing) or the install. */
export function installArgs(cli: string, host: string, workspace: string, scope: GateScope, write: boolean): string[] {
  return [cli, 'gate', 'install', host, '--workspace', workspace, ...(scope !== 'workspace' ? ['--scope', scope] : []), ...(write ? ['--yes'] : [])];
}

/** What a preview run of the CLI said: the changes it would write (its diff), its warnings, or why it refused. */
export type Preview = { ok: true; changes: string; files: string[]; warnings: string[]; nothingToDo: boolean } | { ok: false; message: string };

/**
 * Reads a preview run. The CLI, with no terminal to ask and no --yes, prints each change as a
 * diff (`+++ FILE (+added −removed)` headers) and refuses with exit 1 and "not written: there is
 * no terminal to ask"; when everything is already set it says "already set" and exits 0. Any
 * other exit is its refusal, said as it is.
 */
export function readPreview(code: number | null, stdout: string, stderr: string): Preview {
  const warnings = stderr.split('\n').filter((l) => l.startsWith('warning: ')).map((l) => l.slice('warning: '.length));
  if (code === 0 && /already set/.test(stdout)) return { ok: true, changes: '', files: [], warnings, nothingToDo: true };
  if (code === 1 && /there is no terminal to ask/.test(stderr)) {
    const files = [...stdout.matchAll(/^\+\+\+ (.+?)(?: \(\+\d+ \S\d+\))?$/gm)].map((m) => m[1]!.trim());
    return { ok: true, changes: stdout.trim(), files, warnings, nothingToDo: false };
  }
  const said = stderr.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('warning: ')).join('\n').trim() || stdout.trim();
  return { ok: false, message: said || `the command line ended with exit ${code} and said nothing` };
}

/** The hook command the CLI writes, read back from its diff (the line with ` gate --host `). */
export function hookCommandIn(changes: string): string | undefined {
  const line = changes.split('\n').find((l) => l.startsWith('+') && / gate --host /.test(l));
  const m = line?.match(/"(?:command|bash)":\s*"((?:[^"\\]|\\.)*)"/);
  return m ? (JSON.parse(`"${m[1]}"`) as string) : undefined;
}

/** The risk of where the hook lives, said before anything is written. */
export function scopeRisk(scope: GateScope, hostName: string, userOffered: boolean): string {
  if (scope === 'user') return `The hook goes into ${hostName}'s user settings, outside the workspace: out of reach of an agent kept to the workspace. A setting in the workspace can still switch ${hostName}'s hooks off; the command line names which when it installs, and \`ideal-state gate doctor\` shows what the next session runs.`;
  return `The hook goes into a file inside the workspace, which the agent can write: an agent can switch the gate off there. ${userOffered ? 'Installing for your user (outside the workspace) is safer.' : 'Installing outside the workspace is safer: see `ideal-state gate install --help` (--scope).'}`;
}

/** The modal's text: what will be written where, the hook command, and the risk. */
export function confirmation(hostName: string, scope: GateScope, preview: Extract<Preview, { ok: true }>, node: { node: string; why: string }, cli: string, userOffered: boolean): { message: string; detail: string } {
  const command = hookCommandIn(preview.changes);
  const lines = [
    `Files: ${preview.files.join(', ')}`,
    `Hook command: ${command ?? '(see the changes below)'}`,
    `Runs: ${node.node} (${node.why}) with the command line inside this extension, ${cli}. After the extension updates, run this again: the path names its version.`,
    '',
    scopeRisk(scope, hostName, userOffered),
    ...(preview.warnings.length > 0 ? ['', ...preview.warnings.map((w) => `Warning: ${w}`)] : []),
    '',
    preview.changes,
  ];
  return { message: `Install the done gate for ${hostName} ${scope === 'user' ? 'for your user' : 'in this workspace'}?`, detail: lines.join('\n') };
}
