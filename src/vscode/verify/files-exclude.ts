import * as vscode from 'vscode';

/** The `files.exclude` globs switched on for this folder, as GREP's extra excludes. */
export function filesExcludeGlobs(folder: vscode.Uri): string[] {
  const excluded = vscode.workspace.getConfiguration('files', folder).get<Record<string, unknown>>('exclude', {});
  // A `{ when: … }` value depends on sibling files, which a glob cannot say: such files stay searched.
  return Object.entries(excluded)
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
}
