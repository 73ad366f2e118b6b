import { spawn } from 'node:child_process';
import { scrubEnvironment } from './secret-env';
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

export function searchWithRipgrep(rg: string, request: SearchRequest): Promise<RipgrepOutcome> {
  if (request.signal.aborted) return Promise.resolve({ kind: 'cancelled' });
  return new Promise((resolve) => {
    const child = spawn(rg, ripgrepArgs(request), { cwd: request.scope.root, env: scrubEnvironment(process.env), stdio: ['ignore', 'pipe', 'pipe'] });
    // Per file: how many matching lines, and the smallest line numbers (enough for the locations).
    const perFile = new Map<string, { count: number; lines: number[] }>();
    const keep = request.maxLocations ?? 10;
    let carry = '';
    let stderr = '';
    let ending: 'timeout' | 'cancelled' | undefined;
    const timer = setTimeout(() => stop('timeout'), request.timeoutMs);
    const stop = (why: 'timeout' | 'cancelled') => {
      ending ??= why;
      child.kill('SIGKILL');
    };
    const onAbort = () => stop('cancelled');
    request.signal.addEventListener('abort', onAbort, { once: true });

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
      if (entry.lines.length < keep) entry.lines.push(n);
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
    const done = (outcome: RipgrepOutcome | Promise<RipgrepOutcome>) => {
      clearTimeout(timer);
      request.signal.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    child.on('error', (error) => done({ kind: 'error', reason: `ripgrep (${rg}) could not start: ${error.message}` }));
    child.on('close', (code) => {
      if (ending === 'cancelled') return done({ kind: 'cancelled' });
      if (ending === 'timeout') return done({ kind: 'timeout', timeoutMs: request.timeoutMs });
      if (carry) take(carry);
      if (code === 2 && /regex parse error|error parsing|PCRE2|unrecognized|not allowed|look-?around|backreferences/i.test(stderr) && perFile.size === 0) {
        return done({ kind: 'pattern-rejected', reason: firstLine(stderr) });
      }
      if (code !== 0 && code !== 1 && code !== 2) return done({ kind: 'error', reason: `ripgrep exited ${code}: ${firstLine(stderr)}` });
      // Exit 2 is "an error happened": only per-file errors (an unreadable file, named) leave the
      // rest of the search true. Anything else (an rg that cannot run here, a bad argument) means
      // the search did not happen, so "0 matching lines" would be a false FAIL: it is unknown.
      const other = code === 2 ? otherErrors(stderr) : undefined;
      if (other) return done({ kind: 'error', reason: `ripgrep (${rg}) failed: ${other}` });
      done(collect(request, perFile, unreadableFrom(stderr)));
    });
  });
}

async function collect(request: SearchRequest, perFile: Map<string, { count: number; lines: number[] }>, unreadable: string[]): Promise<SearchOutcome> {
  const collector = new MatchCollector(request.maxLocations, request.maxFiles);
  collector.unreadable = unreadable;
  for (const [file, { count, lines }] of perFile) {
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
