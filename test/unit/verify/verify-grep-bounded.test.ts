import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { searchForAgent } from '../../../src/agent/workspace-search';
import { verifyCommand } from '../../../src/cli/commands/verify';
import { SearchScope } from '../../../src/verify/search-scope';
import { searchWithJs } from '../../../src/verify/search-js';
import type { VerifyHost } from '../../../src/verify/types';
import { verifyGrep } from '../../../src/verify/verifiers/grep';
import { context, criterion, workspace } from '../support/verify-helpers';

// (a+)+$ over a long line of `a` that ends in `b` backtracks for longer than anyone waits
// (issue 15: it held `verify --timeout 10` and a FAST run for minutes and ignored Ctrl+C).
const CATASTROPHIC = '(a+)+$';
const STUCK_LINE = `${'a'.repeat(50_000)}b\n`;

const request = (root: string, pattern: string, timeoutMs: number, signal = new AbortController().signal) => ({ scope: SearchScope.create(root, undefined, [], []), pattern, signal, timeoutMs });

/** Runs `body` with no ripgrep anywhere, so the GREP verifier and the agent use the JS search. */
async function withoutRipgrep<T>(body: (noRg: string) => Promise<T>): Promise<T> {
  const previous = process.env.PATH;
  process.env.PATH = '/nonexistent';
  try {
    return await body('/nonexistent/rg');
  } finally {
    process.env.PATH = previous;
  }
}

describe('verify: the JS search under a catastrophic regex (issue 15)', () => {
  it('ends at its timeout, however many files are waiting behind the stuck one', async () => {
    const files: Record<string, string> = { 'stuck.txt': STUCK_LINE };
    for (let i = 0; i < 50; i++) files[`more/f${i}.txt`] = STUCK_LINE.repeat(2);
    const root = workspace(files);
    assert.deepEqual(await searchWithJs(request(root, CATASTROPHIC, 1000)), { kind: 'timeout', timeoutMs: 1000 });
  });

  it('returns cancelled when its signal aborts in the middle of a match', async () => {
    const root = workspace({ 'stuck.txt': STUCK_LINE });
    const controller = new AbortController();
    const search = searchWithJs(request(root, CATASTROPHIC, 600_000, controller.signal));
    setTimeout(() => controller.abort(), 300);
    assert.deepEqual(await search, { kind: 'cancelled' });
  });

  it('leaves its own thread free: a timer set during the search fires before the search returns', async () => {
    const root = workspace({ 'stuck.txt': STUCK_LINE });
    const order: string[] = [];
    const search = searchWithJs(request(root, CATASTROPHIC, 1500)).then((o) => order.push(`search ${o.kind}`));
    setTimeout(() => order.push('timer'), 100);
    await search;
    assert.deepEqual(order, ['timer', 'search timeout']);
  });

  it('makes the GREP criterion UNKNOWN with the time limit as the reason', async () => {
    const root = workspace({ 'stuck.txt': STUCK_LINE, 'ok.txt': 'aaa\n' });
    const method = { type: 'GREP' as const, pattern: CATASTROPHIC, expect: 'present' as const };
    const verdict = await withoutRipgrep((noRg) => {
      const host: VerifyHost = { workspaceRoot: root, ripgrepPath: noRg };
      return verifyGrep(method, context(host, criterion(method), { timeoutMs: 1000 }));
    });
    assert.equal(verdict.outcome, 'UNKNOWN');
    assert.equal(verdict.failureLabel, 'EXECUTION_ERROR');
    assert.match(verdict.evidence, /^the search for \/\(a\+\)\+\$\/ in workspace files did not finish within 1\.0 s$/);
  });

  it('`ideal-state verify --timeout 1` reports that criterion and exits 1, not hanging', async () => {
    const root = workspace({ 'stuck.txt': STUCK_LINE });
    const prd = path.join(root, 'PRD.md');
    fs.writeFileSync(prd, ['---', 'prd: true', '---', '# T', '## Problem Space', 'x', '## Ideal State Criteria', `- [ ] ISC-1: The stuck file matches | Verify: Grep: ${CATASTROPHIC}`, ''].join('\n'));
    const out: string[] = [];
    const code = await withoutRipgrep((noRg) => verifyCommand([prd, '--workspace', root, '--no-store', '--json', '--timeout', '1', '--rg', noRg], { out: (s) => out.push(s), err: () => undefined }));
    assert.equal(code, 1);
    const result = JSON.parse(out.join('')).results[0];
    assert.equal(result.outcome, 'UNKNOWN');
    assert.match(result.evidence, /did not finish within 1\.0 s/);
  });

  it('still finds every line of a file too large to read whole, numbered across its chunks', async () => {
    // Past 8 MB the file is streamed in 1 MB chunks; matches sit on both sides of chunk edges.
    const lines: string[] = [];
    for (let i = 1; i <= 150_000; i++) lines.push(i % 25_000 === 0 ? `needle ${i}` : `${'x'.repeat(60)} line ${i}`);
    const root = workspace({ 'big.txt': `${lines.join('\n')}\n` });
    assert.ok(fs.statSync(path.join(root, 'big.txt')).size > 8 * 1024 * 1024);
    const found = await searchWithJs({ ...request(root, '^needle', 60_000), maxLocations: 100 });
    assert.equal(found.kind, 'done');
    assert.deepEqual(found.kind === 'done' && found.locations.map((l) => l.line), [25_000, 50_000, 75_000, 100_000, 125_000, 150_000]);
  });
});

describe('agent: the search tool under a catastrophic regex (issue 15)', () => {
  const source = (root: string, ripgrepPath: string) => ({ root, ripgrepPath, readFile: async (f: string) => fs.readFileSync(path.join(root, f), 'utf8') });

  it('gives the model an error naming its deadline instead of holding the run', async () => {
    const root = workspace({ 'stuck.txt': STUCK_LINE });
    const error = await withoutRipgrep((noRg) => searchForAgent(source(root, noRg), CATASTROPHIC, { limit: 10, signal: new AbortController().signal, timeoutMs: 1000 }).then(() => undefined, (e: Error) => e));
    assert.ok(error instanceof Error, 'the search fails');
    assert.match(error.message, /^the search for \/\(a\+\)\+\$\/ did not finish within 1 s and was stopped; use a simpler pattern/);
  });

  it('finds ordinary matches with the same engine', async () => {
    const root = workspace({ 'stuck.txt': STUCK_LINE, 'src/a.ts': 'const needle = 1;\n' });
    const hits = await withoutRipgrep((noRg) => searchForAgent(source(root, noRg), 'needle', { limit: 10, signal: new AbortController().signal, timeoutMs: 10_000 }));
    assert.deepEqual(hits, [{ file: 'src/a.ts', line: 1, text: 'const needle = 1;' }]);
  });
});
