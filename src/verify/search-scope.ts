import * as path from 'node:path';
import { compileGlob, lastMatch, literalGlob, parseIgnoreFile, type GlobRule } from './glob';
import { readRegularTextOrAbsent } from './safe-read';
import type { ApprovedIgnores } from './search-rules';

/** How a search reads ignore rules; absent: the `.gitignore` files as they are on disk. */
export interface ScopeOptions {
  /** The `.gitignore` texts a person approved, used instead of the files on disk. */
  readonly approvedIgnores?: ApprovedIgnores;
  /** No `.gitignore` applies: a Grep that means to search ignored files too. */
  readonly includeIgnored?: boolean;
  /** The dependency and tool folders left out (their names), for the evidence; they are among the excludes. */
  readonly neverSource?: readonly string[];
}

/**
 * Which workspace files a GREP looks at, the same for ripgrep and the JS search:
 * not `.git`, not ignored by a `.gitignore` (the root's and every nested one; a deeper file
 * wins over a shallower one, the last matching line wins within a file, `!` re-includes,
 * nothing inside an ignored folder comes back), not under an exclude glob (the editor's
 * `files.exclude`, the PRD being verified), and, when the criterion gives a glob, matching
 * it. Symlinks are never followed; a file with a NUL byte is searched as text.
 *
 * With approved ignore rules, the `.gitignore` texts come from them and never from disk (a file
 * the agent added has no rules, one it changed or removed applies the approved text); with
 * `includeIgnored`, no `.gitignore` applies at all.
 */
export class SearchScope {
  private readonly ignoreCache = new Map<string, Promise<GlobRule[]>>();
  private readonly folders = new Map<string, Promise<FolderRules>>();
  /** The folders of `folders` already worked out. */
  private readonly known = new Map<string, FolderRules>();

  private constructor(
    readonly root: string,
    readonly glob: GlobRule | undefined,
    /** Exclude rules, matched against root-relative paths. */
    readonly excludes: readonly GlobRule[],
    /** The globs as ripgrep takes them (`-g`), in order. */
    readonly ripgrepGlobs: readonly string[],
    /** The approved `.gitignore` texts by normalized path, when the search uses them. */
    private readonly approvedTexts: ReadonlyMap<string, string | null> | undefined,
    readonly approved: ApprovedIgnores | undefined,
    readonly includeIgnored: boolean,
    readonly neverSource: readonly string[],
  ) {}

  static create(root: string, glob: string | undefined, excludeGlobs: readonly string[], excludeFiles: readonly string[], options: ScopeOptions = {}): SearchScope {
    const normalized = glob === undefined ? undefined : glob.endsWith('/') ? `${glob}**` : glob;
    const excludeSources = ['.git', ...excludeGlobs, ...excludeFiles.map((f) => literalGlob(f))];
    const excludes = excludeSources.map((g) => compileGlob(g.startsWith('!') ? g.slice(1) : g)).filter((r): r is GlobRule => r !== undefined);
    const ripgrepGlobs = [...(normalized ? [normalized] : []), ...excludeSources.map((g) => `!${g.startsWith('!') ? g.slice(1) : g}`)];
    const approved = options.includeIgnored ? undefined : options.approvedIgnores;
    const texts = approved ? new Map([...approved.files].map(([file, text]) => [normalizePath(file), text])) : undefined;
    return new SearchScope(root, normalized ? compileGlob(normalized) : undefined, excludes, ripgrepGlobs, texts, approved, options.includeIgnored === true, options.neverSource ?? []);
  }

  /** The approved text of a `.gitignore` (null: approved as absent; undefined: not approved, or no approved texts). */
  approvedText(file: string): string | null | undefined {
    return this.approvedTexts?.get(file);
  }

  /** What decides this scope's files besides the glob: the same for every Grep of a verification with the same excludes. */
  get rulesKey(): string {
    return `${this.root}\0${this.ripgrepGlobs.filter((g) => g.startsWith('!')).join('\0')}`;
  }

  /** Whether the glob and the excludes admit this file (ignore files are the walk's business). */
  admitsFile(relative: string): boolean {
    if (this.glob && !this.glob.regex.test(relative)) return false;
    return !this.excluded(relative, false);
  }

  excluded(relative: string, isDir: boolean): boolean {
    return lastMatch(this.excludes, relative, isDir) !== undefined;
  }

  /**
   * The rules of `<dir>/.gitignore` (dir root-relative, '' for the root); none when it has none,
   * when ignored files are searched too, or when approved texts are used and none was approved.
   */
  ignoreRules(dir: string): Promise<GlobRule[]> {
    let rules = this.ignoreCache.get(dir);
    if (!rules) {
      if (this.includeIgnored) rules = Promise.resolve([]);
      else if (this.approvedTexts) rules = Promise.resolve(parseIgnoreFile(this.approvedTexts.get(ignoreFileOf(dir)) ?? ''));
      // Only a regular file is read: a FIFO named .gitignore would hang the search.
      else rules = readRegularTextOrAbsent(path.join(this.root, dir, '.gitignore')).then((text) => parseIgnoreFile(text ?? ''));
      this.ignoreCache.set(dir, rules);
    }
    return rules;
  }

  /** Whether a file is ignored by `.gitignore` files or excludes, looking at every folder above it. */
  async ignoresFile(relative: string): Promise<boolean> {
    return this.ignoresFileKnown(relative) ?? this.ignoredIn(await this.folder(folderOf(relative)), relative);
  }

  /**
   * The same answer without waiting, once the file's folder has been worked out (undefined
   * before): a search that matches in a thousand files of a few folders then waits a few times,
   * not a thousand.
   */
  ignoresFileKnown(relative: string): boolean | undefined {
    const above = this.known.get(folderOf(relative));
    return above === undefined ? undefined : this.ignoredIn(above, relative);
  }

  private ignoredIn(above: FolderRules, relative: string): boolean {
    return above.ignored || this.excluded(relative, false) || ignoredBy(above.stack, relative, false);
  }

  /**
   * A folder's `.gitignore` levels (its own and every one above it) and whether it is ignored
   * itself, worked out once per folder: ripgrep's matches are checked file by file, and a
   * search that matches in every file of a large tree would otherwise walk each path again.
   */
  private folder(dir: string): Promise<FolderRules> {
    let known = this.folders.get(dir);
    if (!known) {
      known = (async (): Promise<FolderRules> => {
        if (dir === '') return { ignored: false, stack: [{ base: '', rules: await this.ignoreRules('') }] };
        const slash = dir.lastIndexOf('/');
        const parent = await this.folder(slash < 0 ? '' : dir.slice(0, slash));
        const ignored = parent.ignored || this.excluded(dir, true) || ignoredBy(parent.stack, dir, true);
        return { ignored, stack: ignored ? parent.stack : [...parent.stack, { base: dir, rules: await this.ignoreRules(dir) }] };
      })();
      void known.then((rules) => this.known.set(dir, rules), () => undefined);
      this.folders.set(dir, known);
    }
    return known;
  }
}

/** A folder's `.gitignore` levels (its own and every one above it) and whether it is ignored itself. */
interface FolderRules {
  ignored: boolean;
  stack: readonly IgnoreLevel[];
}

/** The workspace-relative path of a folder's `.gitignore`. */
export function ignoreFileOf(dir: string): string {
  return dir === '' ? '.gitignore' : `${dir}/.gitignore`;
}

/** A path as approved texts may key it ('./x', 'a\\b') in the form the walk uses ('x', 'a/b'). */
function normalizePath(file: string): string {
  return file.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
}

function folderOf(relative: string): string {
  const slash = relative.lastIndexOf('/');
  return slash < 0 ? '' : relative.slice(0, slash);
}

export interface IgnoreLevel {
  /** Root-relative folder of the `.gitignore`, '' for the root. */
  base: string;
  rules: readonly GlobRule[];
}

/** The deepest `.gitignore` with a matching line decides. */
export function ignoredBy(stack: readonly IgnoreLevel[], relative: string, isDir: boolean): boolean {
  for (let i = stack.length - 1; i >= 0; i--) {
    const level = stack[i]!;
    if (level.rules.length === 0) continue;
    const rel = level.base === '' ? relative : relative.slice(level.base.length + 1);
    const m = lastMatch(level.rules, rel, isDir);
    if (m) return !m.negated;
  }
  return false;
}
