import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/repo-root';

const CLI = path.resolve(REPO_ROOT, 'dist/cli.js');

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: os.tmpdir(), encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('command line: ratings and reflections (dist/cli.js)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-ratings-'));
  const store = path.join(dir, 'store.sqlite');
  const ratings = path.join(dir, 'ratings.jsonl');
  const lines = [2, 3, 4, 8, 9].map((r, i) => JSON.stringify({ timestamp: `2026-01-0${i + 1}T10:00:00Z`, rating: r, session_id: 's', type: 'explicit' }));
  fs.writeFileSync(ratings, [...lines.slice(0, 2), '{"broken": ', ...lines.slice(2)].join('\n') + '\n');

  it('imports a ratings.jsonl, reporting the bad line by file and number, and exits 1 for it', () => {
    const r = cli(['ratings', 'import', ratings, '--store', store]);
    assert.equal(r.code, 1, r.err);
    assert.equal(r.out.trim(), 'imported 5 ratings; 1 bad line skipped');
    assert.equal(r.err.trim(), `${ratings}:3: skipped: not valid JSON`);
  });

  it('adds nothing on a re-import', () => {
    const r = cli(['ratings', 'import', ratings, '--store', store]);
    assert.equal(r.out.trim(), 'imported 0 ratings (5 already in the store); 1 bad line skipped');
  });

  it('prints stats as text and JSON: count, rolling average of the last 10, trend', () => {
    const text = cli(['ratings', 'stats', '--store', store]);
    assert.equal(text.code, 0, text.err);
    assert.equal(text.out, 'ratings: 5\nrolling average (last 10): 5.2 ↑\n');
    assert.deepEqual(JSON.parse(cli(['ratings', 'stats', '--json', '--store', store]).out), { count: 5, rollingAverage: 5.2, trend: '↑' });
  });

  it('exports to a file in PAI layout, equal line for line to the good input lines', () => {
    const out = path.join(dir, 'nested', 'export.jsonl');
    const r = cli(['ratings', 'export', '--out', out, '--store', store]);
    assert.equal(r.code, 0, r.err);
    const exported = fs.readFileSync(out, 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l));
    assert.deepEqual(exported, lines.map((l) => JSON.parse(l)).map((e) => ({ ...e, timestamp: e.timestamp.replace('Z', '.000Z') })));
  });

  it('imports and mines reflections; refuses misuse with exit 2', () => {
    const file = path.join(dir, 'algorithm-reflections.jsonl');
    fs.writeFileSync(file, '{"timestamp":"2026-02-27T00:49:43Z","effort_level":"Standard","task_description":"Fix auth","criteria_count":2,"criteria_passed":1,"criteria_failed":1,"prd_id":"p","implied_sentiment":4,"reflection_q1":"Verify command missing","reflection_q2":"Make verify concrete","reflection_q3":"Verifier templates","within_budget":true}\n');
    assert.equal(cli(['reflections', 'import', file, '--store', store]).out.trim(), 'imported 1 reflections');
    const themes = JSON.parse(cli(['reflections', 'mine', '--json', '--store', store]).out);
    assert.equal(themes.length, 1);
    assert.equal(themes[0].frequency, 1);
    assert.equal(cli(['ratings', 'import', '--store', store]).code, 2);
    assert.equal(cli(['ratings', 'frobnicate', '--store', store]).code, 2);
    const missing = cli(['ratings', 'import', path.join(dir, 'nope.jsonl'), '--store', store]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read .*nope\.jsonl: ENOENT/);
  });
});
