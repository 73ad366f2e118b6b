import { availableParallelism } from 'node:os';
import { confineGlob } from '../confine';
import { searchWorkspace } from '../search';
import { ignoreChanges } from '../search-approved';
import { describeScope, neverSourceExcludes, neverSourceFolders } from '../search-rules';
import { SearchScope } from '../search-scope';
import { compilePattern } from '../search-types';
import { fail, pass, unknown, type MethodOf, type VerifierContext, type Verdict } from '../verdict';
import { cancelled } from './cancelled';

/**
 * GREP: lines matching a regex in the workspace files SearchScope admits: the source, under the
 * ignore rules a person approved (the host's approved `.gitignore` texts, else the files as they
 * are), never a dependency or tool folder its glob does not name, and ignored files too only
 * when the Grep says `| ignored: include`. The evidence says which rules it searched under.
 *
 * Anti-criteria: the pattern names the bad thing, so an anti-criterion's GREP always looks
 * for its absence, whatever `expect` says: "No API key in logs | Verify: Grep: sk-…"
 * PASSes when nothing matches and FAILs (CONSTRAINT_VIOLATION) with the locations when
 * something does. It searches the same files a criterion's GREP does.
 */
export async function verifyGrep(method: MethodOf<'GREP'>, ctx: VerifierContext): Promise<Verdict> {
  const anti = ctx.criterion.kind === 'anti-criterion';
  const expect = anti ? 'absent' : method.expect;
  const shown = `/${method.pattern}/`;
  const compiled = compilePattern(method.pattern);
  if (!compiled.ok) return unknown('AMBIGUITY', `${shown} is not a valid regular expression: ${compiled.reason}`, `The Grep pattern of ${ctx.criterion.id} is a valid regular expression`);
  if (method.glob !== undefined) {
    const g = confineGlob(method.glob);
    if (!g.ok) return unknown('SCOPE_ERROR', `not searched: ${g.reason}`, `The Grep glob of ${ctx.criterion.id} names files inside the workspace`);
  }
  const where = method.glob ? `files matching ${method.glob}` : 'workspace files';
  const excludes = [...ctx.host.excludeGlobs ?? [], ...ownFilesExcluded(method.glob), ...neverSourceExcludes(method.glob)];
  const scope = SearchScope.create(ctx.host.workspaceRoot, method.glob, excludes, ctx.excludeFiles, {
    ...(ctx.host.approvedIgnores ? { approvedIgnores: ctx.host.approvedIgnores } : {}),
    includeIgnored: method.ignored === 'include',
    neverSource: neverSourceFolders(method.glob),
  });
  const found = await searchWorkspace({ scope, pattern: method.pattern, signal: ctx.signal, timeoutMs: ctx.timeoutMs, ...searchThreads(ctx.concurrent) }, ctx.host.ripgrepPath, ctx.host.processes);
  switch (found.kind) {
    case 'cancelled':
      throw cancelled();
    case 'timeout':
      return unknown('EXECUTION_ERROR', `the search for ${shown} in ${where} did not finish within ${(found.timeoutMs / 1000).toFixed(1)} s`, `The search for ${shown} finishes within the time limit`);
    case 'error':
      return unknown('EXECUTION_ERROR', `the search for ${shown} failed: ${found.reason}`, `${where} can be searched for ${shown}`);
  }
  const engine = found.engine === 'ripgrep' ? 'ripgrep' : 'JS search';
  const summary = `${found.matchCount} matching line${found.matchCount === 1 ? '' : 's'} in ${found.fileCount} file${found.fileCount === 1 ? '' : 's'} of ${where} for ${shown} (${engine})`;
  const firsts = found.locations.map((l) => `${l.file}:${l.line}`);
  const rules = describeScope(scope, await ignoreChanges(scope, ctx.signal));
  if (ctx.signal.aborted) throw cancelled();
  const details = [
    ...(firsts.length > 0 ? [`first: ${firsts.join(', ')}${found.matchCount > firsts.length ? ', …' : ''}`] : []),
    ...(found.unreadable.length > 0 ? [`could not read: ${found.unreadable.slice(0, 10).join(', ')}${found.unreadable.length > 10 ? ', …' : ''}`] : []),
    rules,
    ...(found.note ? [found.note] : []),
  ];
  const evidence = [summary, ...details].join('\n');
  const extra = { actual: `${found.matchCount} matching line${found.matchCount === 1 ? '' : 's'}`, threshold: expect === 'present' ? 'at least 1 matching line' : '0 matching lines', locations: found.locations };
  const everyFile = { globs: [method.glob === undefined ? '**' : method.glob.endsWith('/') ? `${method.glob}**` : method.glob] };
  if (expect === 'present') {
    if (found.matchCount > 0) return pass(evidence, { ...extra, coverage: found.files ? { paths: found.files } : everyFile });
    if (found.unreadable.length > 0) return unknown('EXECUTION_ERROR', evidence, `Every file of ${where} can be read`, extra);
    return fail('REQUIREMENT_COVERAGE', evidence, `A line in ${where} matches ${shown}`, { ...extra, coverage: everyFile });
  }
  if (found.matchCount > 0) return fail(anti ? 'CONSTRAINT_VIOLATION' : 'REQUIREMENT_COVERAGE', evidence, `No line in ${where} matches ${shown}`, extra);
  if (found.unreadable.length > 0) return unknown('EXECUTION_ERROR', evidence, `Every file of ${where} can be read`, extra);
  return pass(evidence, { ...extra, coverage: everyFile });
}

/**
 * `.ideal-state/` holds Ideal State's own files: PRDs that quote the very patterns they ask
 * for, models files, scripted demos. They are never evidence about the workspace's code, so
 * a Grep leaves them out unless its glob names that folder.
 */
function ownFilesExcluded(glob: string | undefined): string[] {
  return glob?.replace(/^\.\//, '').startsWith('.ideal-state/') ? [] : ['.ideal-state'];
}

/**
 * The search's threads (ripgrep's, or the JS search's workers) when other criteria are verified
 * beside this one: the cores shared out, at least one each. A search alone takes one thread per
 * core; four searches and commands at once on two cores would then run eight threads on two, and
 * every check beside them would wait.
 */
export function searchThreads(concurrent: number | undefined, cores: number = availableParallelism()): { threads?: number } {
  if (concurrent === undefined || concurrent <= 1) return {};
  return { threads: Math.max(1, Math.floor(cores / concurrent)) };
}
