import { spawn } from 'node:child_process';
import { scrubEnvironment } from './secret-env';
import type { ProcessRunner, RipgrepRun, RipgrepRunOptions } from './process-runner';

export type { RipgrepRun, RipgrepRunOptions } from './process-runner';
import { MatchCollector, type SearchOutcome, type SearchRequest } from './search-types';

/**
 * The GREP search with ripgrep. Ignore handling is pinned to what the JS search does
 * (`.gitignore` files inside the workspace only, hidden files searched, no `.ignore`,
 * global or parent ignore files, `.gitignore` honoured outside a git repository too), and
 * every matched file is checked against SearchScope afterwards, because ripgrep lets a
 * `--glob` re-include files that a `.gitignore` ignores.
 *
 * `pattern-rejected` means ripgrep could not compile the pattern (e.g. a JS-only feature);
 * the caller then searches with the JS engine.
 */
export type RipgrepOutcome = SearchOutcome | { kind: 'pattern-rejected'; reason: string };

export function ripgrepArgs(request: SearchRequest): string[] {
  return [
    '--no-config',
    '--hidden',
    '--no-require-git',
    '--no-ignore-dot',
    '--no-ignore-global',
    '--no-ignore-parent',
    '--no-ignore-exclude',
    // A Grep that searches ignored files too reads no .gitignore at all.
    ...(request.scope.includeIgnored ? ['--no-ignore-vcs'] : []),
    // Files with a NUL byte are searched as text: skipping "binary" files would let one NUL
    // written into a source file hide a match from an anti-criterion.
    '--text',
    '--line-number',
    '--with-filename',
    '--null',
    '--no-heading',
    '--color',
    'never',
    // The text of a matching line is not needed, only where it is.
    '--max-columns',
    '1',
    '--engine',
    'auto',
    ...(request.threads !== undefined ? ['--threads', String(request.threads)] : []),
    ...request.scope.ripgrepGlobs.flatMap((g) => ['--glob', g]),
    '-e',
    request.pattern,
    '--',
    '.',
  ];
}


/** Runs ripgrep (--null --line-number output) and reads its matches; never throws. */
export function runRipgrep(options: RipgrepRunOptions): Promise<RipgrepRun> {
  if (options.signal?.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(options.rg, options.args, { cwd: options.cwd, env: scrubEnvironment(process.env), stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (error) {
      resolve({ kind: 'spawn-error', message: (error as Error).message });
      return;
    }
    // Per file: how many matching lines, and the smallest line numbers (enough for the locations).
    const perFile = new Map<string, { count: number; lines: number[] }>();
    let carry = '';
    let stderr = '';
    let ending: 'timeout' | 'cancelled' | undefined;
    const timer = setTimeout(() => stop('timeout'), options.timeoutMs);
    const stop = (why: 'timeout' | 'cancelled') => {
      ending ??= why;
      child.kill('SIGKILL');
    };
    const onAbort = () => stop('cancelled');
    options.signal?.addEventListener('abort', onAbort, { once: true });

    const take = (record: string) => {
      const nul = record.indexOf('\0');
      if (nul < 0) return;
      const colon = record.indexOf(':', nul + 1);
      const n = Number(record.slice(nul + 1, colon));
      if (!Number.isInteger(n)) return;
      let file = record.slice(0, nul);
      if (file.startsWith('./')) file = file.slice(2);
      let entry = perFile.get(file);
      if (!entry) perFile.set(file, (entry = { count: 0, lines: [] }));
      entry.count++;
      if (entry.lines.length < options.keep) entry.lines.push(n);
    };
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      const text = carry + chunk;
      let start = 0;
      for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
        take(text.slice(start, end));
        start = end + 1;
      }
      carry = text.slice(start);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 64 * 1024) stderr += chunk;
    });
    const done = (run: RipgrepRun) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(run);
    };
    child.on('error', (error) => done({ kind: 'spawn-error', message: error.message }));
    child.on('close', (code) => {
      if (ending) return done({ kind: ending });
      if (carry) take(carry);
      done({ kind: 'closed', code, perFile: [...perFile].map(([file, e]) => [file, e.count, e.lines]), stderr });
    });
  });
}

/** The GREP search through ripgrep, started by `runner` (default: in this process). */
export async function searchWithRipgrep(rg: string, request: SearchRequest, runner: Pick<ProcessRunner, 'runRipgrep'> = { runRipgrep }): Promise<RipgrepOutcome> {
  const run = await runner.runRipgrep({ rg, args: ripgrepArgs(request), cwd: request.scope.root, timeoutMs: request.timeoutMs, signal: request.signal, keep: request.maxLocations ?? 10 });
  if (run.kind === 'cancelled') return { kind: 'cancelled' };
  if (run.kind === 'timeout') return { kind: 'timeout', timeoutMs: request.timeoutMs };
  if (run.kind === 'spawn-error') return { kind: 'error', reason: `ripgrep (${rg}) could not start: ${run.message}` };
  const { code, perFile, stderr } = run;
  if (code === 2 && /regex parse error|error parsing|PCRE2|unrecognized|not allowed|look-?around|backreferences/i.test(stderr) && perFile.length === 0) {
    return { kind: 'pattern-rejected', reason: firstLine(stderr) };
  }
  if (code !== 0 && code !== 1 && code !== 2) return { kind: 'error', reason: `ripgrep exited ${code}: ${firstLine(stderr)}` };
  // Exit 2 is "an error happened": only per-file errors (an unreadable file, named) leave the
  // rest of the search true. Anything else (an rg that cannot run here, a bad argument) means
  // the search did not happen, so "0 matching lines" would be a false FAIL: it is unknown.
  const other = code === 2 ? otherErrors(stderr) : undefined;
  if (other) return { kind: 'error', reason: `ripgrep (${rg}) failed: ${other}` };
  return collect(request, perFile, unreadableFrom(stderr));
}

async function collect(request: SearchRequest, perFile: [file: string, count: number, lines: number[]][], unreadable: string[]): Promise<SearchOutcome> {
  const collector = new MatchCollector(request.maxLocations, request.maxFiles);
  collector.unreadable = unreadable;
  for (const [file, count, lines] of perFile) {
    if (!request.scope.admitsFile(file) || (request.scope.ignoresFileKnown(file) ?? (await request.scope.ignoresFile(file)))) continue;
    lines.forEach((n) => collector.add(file, n));
    collector.matchCount += count - lines.length;
  }
  return collector.result('ripgrep');
}

/** The first line of rg's error output that is not a per-file error (see unreadableFrom), if any. */
function otherErrors(stderr: string): string | undefined {
  return stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !PER_FILE_ERROR.test(l));
}

const PER_FILE_ERROR = /^rg: (?:\.\/)?(.+?): .*\(os error \d+\)$/;

/** `rg: ./path: Permission denied (os error 13)` lines name files whose content is unknown. */
function unreadableFrom(stderr: string): string[] {
  const out: string[] = [];
  for (const line of stderr.split('\n')) {
    const m = PER_FILE_ERROR.exec(line.trim());
    if (m) out.push(m[1]!);
  }
  return out;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !/^\^+$/.test(l))
      .join(' ')
      .slice(0, 300) || 'no message'
  );
}
