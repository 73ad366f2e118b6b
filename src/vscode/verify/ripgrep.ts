import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/**
 * The ripgrep VS Code ships, for GREP criteria: `@vscode/ripgrep-universal/bin/<platform>-<arch>/rg`
 * in recent versions, `@vscode/ripgrep/bin/rg` in older ones, either of them possibly under
 * `node_modules.asar.unpacked`. Undefined when none is there (the engine then tries `rg` on PATH).
 */
export function bundledRipgrep(appRoot = vscode.env.appRoot): string | undefined {
  const exe = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const candidates = ['node_modules', 'node_modules.asar.unpacked'].flatMap((modules) => [
    path.join(appRoot, modules, '@vscode', 'ripgrep-universal', 'bin', `${process.platform}-${process.arch}`, exe),
    path.join(appRoot, modules, '@vscode', 'ripgrep', 'bin', exe),
  ]);
  return candidates.find((file) => existsSync(file));
}

/** The `files.exclude` globs switched on for this folder, as GREP's extra excludes. */
export function filesExcludeGlobs(folder: vscode.Uri): string[] {
  const excluded = vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude', {});
  // A `{ when: … }` value depends on sibling files, which a glob cannot say: such files stay searched.
  return Object.entries(excluded)
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
}
