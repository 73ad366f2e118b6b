/**
 * What "the source" is for a Grep, in one place.
 *
 * Folders that package managers, virtual environments, test harnesses and build tools fill
 * with other people's code are never part of the workspace's source, whether or not a
 * `.gitignore` says so: a criterion about the project's code must not pass or fail on a
 * dependency's `eval` call or a downloaded editor's `console.log`, and a workspace with its
 * dependencies installed must be judged as one without them. They are left out at any depth,
 * unless the Grep's own glob names the folder (`| glob: node_modules/foo/**`).
 *
 * Build output (`dist`, `build`, `out`, `target`, `coverage`) is not on this list: it is left
 * out when the person's `.gitignore` ignores it, as it normally does, and a committed `build/`
 * folder that holds scripts stays part of the source.
 */
export const NEVER_SOURCE_FOLDERS: readonly string[] = [
  'node_modules',
  'bower_components',
  'jspm_packages',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.gradle',
  '.vscode-test',
  '.next',
  '.nuxt',
  '.svelte-kit',
  '.turbo',
  '.parcel-cache',
];

/** The dependency and tool folders a Grep leaves out: all of them but those its glob names as a path segment. */
export function neverSourceFolders(glob: string | undefined): string[] {
  const named = new Set((glob ?? '').split('/'));
  return NEVER_SOURCE_FOLDERS.filter((name) => !named.has(name));
}

/** The same folders as exclude globs (folders only, at any depth). */
export function neverSourceExcludes(glob: string | undefined): string[] {
  return neverSourceFolders(glob).map((name) => `${name}/`);
}

/**
 * The ignore rules a person approved: the text of each `.gitignore` as it was when they locked
 * the criteria or last spoke, keyed by its workspace-relative path ('.gitignore',
 * 'packages/a/.gitignore'); null where the person's workspace had no such file. A search under
 * them reads no `.gitignore` from disk: one the agent added has no rules, one it changed or
 * removed applies the approved text.
 */
export interface ApprovedIgnores {
  readonly files: ReadonlyMap<string, string | null>;
  /** Where the texts come from, as the evidence says it: "locked 2026-11-28 by a person". */
  readonly source: string;
}

/** A `.gitignore` on disk that is not as the person approved it. */
export interface IgnoreChange {
  /** Workspace-relative path of the `.gitignore`. */
  file: string;
  change: 'changed' | 'added' | 'removed';
}

/** What a Grep searched, in a line of its evidence: which ignore rules, what was never searched, what the agent changed that does not count. */
export function describeScope(scope: { readonly approved: ApprovedIgnores | undefined; readonly includeIgnored: boolean; readonly neverSource: readonly string[] }, changes: readonly IgnoreChange[]): string {
  const rules = scope.includeIgnored
    ? 'searched ignored files too (| ignored: include)'
    : scope.approved
      ? `searched under the .gitignore files as ${scope.approved.source}`
      : 'searched under the .gitignore files as they are in the workspace';
  const changed = changes.length === 0 || scope.includeIgnored ? '' : `; ${changeWords(changes)} since and ${changes.length === 1 ? 'does' : 'do'} not change what is searched`;
  const never = scope.neverSource.length === 0 ? '' : `; ${scope.neverSource.slice(0, 2).join(', ')}${scope.neverSource.length > 2 ? ' and the other dependency and tool folders' : ''} never searched`;
  return `${rules}${changed}${never}`;
}

function changeWords(changes: readonly IgnoreChange[]): string {
  const shown = changes.slice(0, 5).map((c) => `${c.file} was ${c.change}`);
  return `${shown.join(', ')}${changes.length > 5 ? `, and ${changes.length - 5} more` : ''}`;
}
