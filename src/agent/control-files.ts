/**
 * Files that steer what runs, as opposed to the code a task is about.
 * Approving the agent's edits must not approve commands: a line in `.git/config`, a hook, a
 * task that runs when the folder opens, a capabilities file that hands later runs the command
 * tool — each is a command in disguise. So the agent's write tools refuse `.git` outright and
 * ask for every change to the files below as a configuration change of its own, which
 * "approve edits" (`--approve edits`, `idealState.run.autoApproveEdits`, "Always for this
 * run") never covers.
 *
 * Not here on purpose: sources, tests, a Makefile or a Dockerfile. They are code the person
 * runs when they choose to (and that an allow-listed `npm test` or `make` runs too: allow-list
 * only commands whose inputs you would let the agent change).
 *
 * Pure: paths only (and a package.json's text); the on-disk half (where a symlink really
 * leads) is the workspace's `landingPath`.
 */

/** One kind of control file: a glob over workspace-relative paths, and what changing it can do. */
export interface ControlFileRule {
  /** `**` any number of folders, `*` any part of one name; matched at any depth, without regard to case. */
  readonly globs: readonly string[];
  /** Shown in the approval: "Change configuration: PATH — {effect}". */
  readonly effect: string;
  /** For files where only some changes steer anything (package.json): does this one? Undefined: every change does. */
  readonly steers?: (before: string | undefined, after: string) => boolean;
}

/** The git folder: refused, never asked. Git runs hooks from it and commands named in its config (core.fsmonitor, core.pager…). */
export const GIT_FOLDER = '.git';

export const CONTROL_FILES: readonly ControlFileRule[] = [
  // Capabilities (which tools each level gets), models (where prompts and API keys go), effort
  // levels, phase graph, roles, ISC definitions — and PRDs, whose Verify lines `verify` runs.
  // The run's own PRD writes do not go through the agent's tools and are not asked.
  { globs: ['**/.ideal-state/**'], effect: 'this can change what Ideal State runs, which tools the agent gets and where prompts and keys are sent' },
  // Settings (idealState.run.allowedCommands, interpreter and terminal paths), tasks (some run
  // when the folder opens), launch configurations, MCP servers, recommended extensions.
  { globs: ['**/.vscode/**', '**/*.code-workspace'], effect: 'this can change what Ideal State or VS Code runs' },
  { globs: ['**/.devcontainer/**', '**/.devcontainer.json'], effect: 'a dev container runs its lifecycle commands when the folder is reopened in it' },
  { globs: ['**/.idea/**'], effect: 'JetBrains IDEs run its run configurations and startup tasks' },
  // npm runs `preinstall`/`install`/`postinstall`/`prepare` at every install, `test` at npm test;
  // husky 4, simple-git-hooks, pre-commit and lint-staged read git hooks from package.json.
  { globs: ['**/package.json'], effect: 'its scripts and git hooks are commands npm and git run', steers: packageScriptsChanged },
  { globs: ['**/.npmrc'], effect: 'npm reads it at every command (script-shell, node-options, registry)' },
  { globs: ['**/.yarnrc', '**/.yarnrc.yml', '**/.pnpmfile.cjs', '**/bunfig.toml'], effect: 'the package manager runs what it names (yarnPath, hooks, preload scripts) at every command' },
  { globs: ['**/.env', '**/.env.*', '**/.envrc'], effect: 'tools and direnv load it into the processes they start (NODE_OPTIONS, PATH)' },
  { globs: ['**/.gitattributes'], effect: 'it chooses which filter and diff programs git runs on each file' },
  { globs: ['**/.gitmodules', '**/.lfsconfig'], effect: 'git fetches from (and sends credentials to) the URLs it names' },
  { globs: ['**/.husky/**', '**/.pre-commit-config.yaml', '**/lefthook.yml', '**/.lefthook.yml'], effect: 'git runs these hooks at every commit or push' },
  {
    globs: ['**/.github/workflows/**', '**/.github/actions/**', '**/.gitlab-ci.yml', '**/.circleci/**', '**/azure-pipelines.yml', '**/Jenkinsfile', '**/.travis.yml', '**/bitbucket-pipelines.yml', '**/.buildkite/**'],
    effect: 'CI runs it with the repository\'s secrets once it is pushed',
  },
  // The editor's ESLint, Prettier and Stylelint extensions load these (JavaScript, or a local
  // parser or plugin they name) as soon as a file is opened or saved.
  { globs: ['**/eslint.config.*', '**/.eslintrc', '**/.eslintrc.*', '**/prettier.config.*', '**/.prettierrc', '**/.prettierrc.*', '**/stylelint.config.*', '**/.stylelintrc', '**/.stylelintrc.*'], effect: 'the editor\'s linters and formatters load and run it when files are opened or saved' },
];

/** What a write by the agent to a path is. */
export type WriteClass = { readonly kind: 'git' } | { readonly kind: 'config'; readonly effect: string } | { readonly kind: 'ordinary' };

/** True when the path is the git folder or inside it, at any depth (a submodule's `.git` too). */
export function isGitPath(relative: string): boolean {
  return segments(relative).some((s) => s === GIT_FOLDER);
}

/**
 * The class of a write to `paths` (the path as asked and where it really lands; the strictest
 * wins). `change` (the file's text before and after) decides the rules that look at content;
 * without it such a rule counts as matching.
 */
export function classifyWrite(paths: readonly string[], change?: { before: string | undefined; after: string }): WriteClass {
  if (paths.some(isGitPath)) return { kind: 'git' };
  for (const p of paths) {
    const s = segments(p);
    for (const rule of COMPILED) {
      if (!rule.globs.some((g) => matches(g, s))) continue;
      if (rule.steers && change && !rule.steers(change.before, change.after)) continue;
      return { kind: 'config', effect: rule.effect };
    }
  }
  return { kind: 'ordinary' };
}

// Zero-width and direction marks: HFS+ ignores them in names, so ".g\u200Cit" is ".git" there.
const IGNORABLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u206A-\u206F\uFEFF]/g;

/**
 * A path's names as the file systems that are least strict would compare them: case folded
 * (upper then lower, so "ı" and "ſ" fold like NTFS does), ignorable marks dropped, an NTFS
 * stream suffix (":$DATA") and Windows' trailing dots and spaces removed. Over-matching costs a
 * question; under-matching would let ".GIT./config" through on Windows.
 */
function segments(relative: string): string[] {
  return relative
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .map((s) => {
      let t = s.normalize('NFC').replace(IGNORABLE, '');
      const colon = t.indexOf(':');
      if (colon > 0) t = t.slice(0, colon);
      t = t.replace(/[. ]+$/, '') || t;
      return t.toUpperCase().toLowerCase();
    });
}

const COMPILED = CONTROL_FILES.map((r) => ({ ...r, globs: r.globs.map((g) => segments(g).map(globSegment)) }));

type GlobPart = '**' | RegExp;

function globSegment(s: string): GlobPart {
  if (s === '**') return '**';
  return new RegExp(`^${s.split('*').map((x) => x.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
}

function matches(glob: readonly GlobPart[], names: readonly string[], gi = 0, ni = 0): boolean {
  if (gi === glob.length) return ni === names.length;
  const part = glob[gi]!;
  if (part === '**') {
    for (let k = ni; k <= names.length; k++) if (matches(glob, names, gi + 1, k)) return true;
    return false;
  }
  return ni < names.length && part.test(names[ni]!) && matches(glob, names, gi + 1, ni + 1);
}

/** package.json keys whose values are commands: npm scripts (and `config`, which scripts read as npm_package_config_*) and the git-hook managers that read it. */
const PACKAGE_COMMAND_KEYS = ['scripts', 'husky', 'simple-git-hooks', 'pre-commit', 'lint-staged', 'config'] as const;

/** Whether a package.json change touches a command; one that cannot be read counts as touching (npm may read it otherwise). */
export function packageScriptsChanged(before: string | undefined, after: string): boolean {
  const a = before === undefined ? {} : readJson(before);
  const b = readJson(after);
  if (a === undefined || b === undefined) return true;
  return PACKAGE_COMMAND_KEYS.some((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

function readJson(text: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ''));
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
