import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { VerificationMethod } from '../../../../src/model';
import { verifyRead } from '../../../../src/verify/verifiers/read';
import { anti, context, criterion, workspace } from '../../support/verify-helpers';

type Read = Extract<VerificationMethod, { type: 'READ' }>;

describe('verify: READ', () => {
  const root = workspace({ 'src/greet.js': "export function greet(name) {\n  return `Hello, ${name}!`;\n}\n", 'docs/': null });
  const read = (m: Omit<Read, 'type'>, c = criterion({ type: 'READ', ...m })) => verifyRead({ type: 'READ', ...m }, context({ workspaceRoot: root }, c));

  it('passes when the file exists, and covers its path', async () => {
    const v = await read({ path: 'src/greet.js' });
    assert.equal(v.outcome, 'PASS');
    assert.match(v.evidence, /^src\/greet\.js exists \(\d+ bytes\)$/);
    assert.deepEqual(v.coverage, { paths: ['src/greet.js'] });
  });

  it('fails for a missing file with what must become true', async () => {
    const v = await read({ path: 'CHANGELOG.md' });
    assert.deepEqual([v.outcome, v.failureLabel, v.evidence, v.repairTarget], ['FAIL', 'REQUIREMENT_COVERAGE', 'CHANGELOG.md does not exist', 'CHANGELOG.md exists']);
  });

  it('checks a substring and a regex, with the line where each was found', async () => {
    const ok = await read({ path: 'src/greet.js', contains: 'Hello, ', matches: '^export function \\w+' });
    assert.equal(ok.outcome, 'PASS');
    assert.equal(ok.evidence, 'src/greet.js has "Hello, " at src/greet.js:2 and /^export function \\w+/ at src/greet.js:1');
    const no = await read({ path: 'src/greet.js', contains: 'Goodbye' });
    assert.equal(no.outcome, 'FAIL');
    assert.equal(no.repairTarget, 'src/greet.js exists and contains "Goodbye"');
    const dir = await read({ path: 'docs', contains: 'x' });
    assert.equal(dir.outcome, 'FAIL');
  });

  it('an invalid regex is UNKNOWN (AMBIGUITY), not an exception', async () => {
    const v = await read({ path: 'src/greet.js', matches: '[unclosed' });
    assert.deepEqual([v.outcome, v.failureLabel], ['UNKNOWN', 'AMBIGUITY']);
  });

  it('refuses paths outside the workspace: ../, absolute, symlink', async () => {
    const outside = workspace({ 'secret.txt': 'x' });
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    for (const p of ['../secret.txt', path.join(outside, 'secret.txt'), 'link.txt']) {
      const v = await read({ path: p });
      assert.deepEqual([v.outcome, v.failureLabel], ['UNKNOWN', 'SCOPE_ERROR'], p);
      assert.match(v.evidence, /^not read: /);
    }
  });

  it('an anti-criterion holds when the file, or its bad content, is absent', async () => {
    const noEnv = anti({ type: 'READ', path: '.env' });
    assert.equal((await verifyRead({ type: 'READ', path: '.env' }, context({ workspaceRoot: root }, noEnv))).outcome, 'PASS');
    const hasGreet = await verifyRead({ type: 'READ', path: 'src/greet.js' }, context({ workspaceRoot: root }, anti({ type: 'READ', path: 'src/greet.js' })));
    assert.deepEqual([hasGreet.outcome, hasGreet.failureLabel], ['FAIL', 'CONSTRAINT_VIOLATION']);
    const noDebug = await verifyRead({ type: 'READ', path: 'src/greet.js', contains: 'debugger' }, context({ workspaceRoot: root }, anti({ type: 'READ', path: 'src/greet.js' })));
    assert.equal(noDebug.outcome, 'PASS');
  });
});
