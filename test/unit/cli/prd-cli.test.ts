import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FIXTURES } from '../prd/prd-helpers';
import { REPO_ROOT } from '../support/repo-root';

const CLI = path.resolve(REPO_ROOT, 'dist/cli.js');
const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace/.ideal-state/prds/PRD-20261121-greeting.md');

function prd(args: string[]) {
  const r = spawnSync(process.execPath, [CLI, 'prd', 'check', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('command line: prd check', () => {
  it('exits 0 for a PRD with warnings only, printing file:line:col: severity: message [rule]', () => {
    const file = path.join(FIXTURES, 'lint-cases.md');
    const r = prd([file]);
    assert.equal(r.code, 0, r.err);
    assert.ok(r.out.includes(`${file}:14:14: warning: ISC-4 is an action ("Implement …")`), r.out);
    assert.match(r.out, /\[isc-action\]$/m);
  });

  it('exits 1 when there are errors', () => {
    const r = prd([path.join(FIXTURES, 'duplicate-ids.md')]);
    assert.equal(r.code, 1);
    assert.match(r.out, /duplicate-ids\.md:12:7: error: ISC-DUP-001 is used by an earlier criterion; give this one its own id \[duplicate-id\]/);
  });

  it('exits 2 when the file cannot be read, or none is given', () => {
    const missing = prd([path.join(os.tmpdir(), 'no-such-prd.md')]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /cannot read .*no-such-prd\.md: ENOENT/);
    assert.equal(prd([fs.mkdtempSync(path.join(os.tmpdir(), 'prd-dir-'))]).code, 2);
    assert.equal(prd([]).code, 2);
  });

  it('prints diagnostics and criteria as JSON with --json', () => {
    const r = prd([path.join(FIXTURES, 'unknown-verify.md'), '--json']);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.out);
    assert.deepEqual(out.diagnostics.find((d: { line: number }) => d.line === 11), { line: 11, column: 83, severity: 'error', message: 'unknown verification type "Telepathy"; use one of CLI, Test, Task, Grep, Read, Static, Custom, Browser', rule: 'unknown-verify-type' });
    assert.deepEqual(
      out.criteria.map((c: { id: string; anti: boolean; checked: boolean; priority: string; verify: unknown }) => [c.id, c.anti, c.checked, c.priority, c.verify]),
      [
        ['ISC-1', false, false, 'CRITICAL', null],
        ['ISC-2', false, false, 'CRITICAL', null],
        ['ISC-3', false, false, 'CRITICAL', null],
        ['ISC-A-1', true, false, 'CRITICAL', { type: 'CUSTOM', description: 'No criterion is dropped because its verify part is wrong' }],
      ],
    );
    const seed = JSON.parse(prd([path.join(FIXTURES, 'seed-000.md'), '--json']).out);
    assert.equal(seed.criteria[0].text, 'Covers all 7 days in period');
  });

  it('passes the sample workspace PRD without any finding', () => {
    const r = prd([SAMPLE, '--json']);
    assert.equal(r.code, 0, r.out);
    const out = JSON.parse(r.out);
    assert.deepEqual(out.diagnostics, []);
    assert.ok(out.criteria.length >= 4);
  });

  it('keeps the other commands working', () => {
    const r = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    assert.match(r.stdout, /prd check FILE/);
    assert.match(r.stdout, /isc list/);
  });
});
