import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { verifyPrdFile } from '../../src/cli/verify-prd';
import { SearchScope } from '../../src/verify/search-scope';
import { searchSkippedFiles } from '../../src/verify/search-skipped';
import { workspace } from './verify-helpers';

const PRD = ['---', 'prd: true', 'id: PRD-20261126-anti', 'effort_level: INSTANT', '---', '', '# Anti', '', '## Ideal State Criteria', '- [ ] ISC-1: The app exists | Verify: Read: src/app.js', '', '## Anti-Criteria', '- [ ] ISC-A-1: No secret token is written anywhere | Verify: Grep: SECRET_TOKEN', ''].join('\n');

async function anti(files: Record<string, string | Buffer>): Promise<{ outcome: string; evidence: string }> {
  const root = workspace({ 'src/app.js': 'module.exports = 1;\n', 'PRD.md': PRD, ...files });
  const r = await verifyPrdFile({ file: path.join(root, 'PRD.md'), workspace: root, timeoutSeconds: 30, yes: false, noCommands: true, store: false, warn: () => undefined });
  assert.equal(r.kind, 'verified');
  if (r.kind !== 'verified') throw new Error('not verified');
  const result = r.set.results.find((x) => x.criterionId === 'ISC-A-1')!;
  return { outcome: result.outcome, evidence: result.evidence };
}

describe("an anti-criterion's Grep looks where the bad thing could be (issue 23, cheat 9)", () => {
  it('finds the offending file when it is .gitignored', async () => {
    const r = await anti({ 'build/out.txt': 'SECRET_TOKEN=abc\n', '.gitignore': 'build/\n' });
    assert.equal(r.outcome, 'FAIL', r.evidence);
    assert.match(r.evidence, /1 matching line in ignored or binary files, first: build\/out\.txt:1/);
  });

  it('finds it in a binary file (a NUL byte), which the search skips', async () => {
    const r = await anti({ 'src/blob.dat': Buffer.concat([Buffer.from('head\0\n'), Buffer.from('SECRET_TOKEN\n')]) });
    assert.equal(r.outcome, 'FAIL', r.evidence);
    assert.match(r.evidence, /first: src\/blob\.dat:2/);
  });

  it('passes when it is nowhere, saying it also searched the ignored and binary files', async () => {
    const r = await anti({ 'build/out.txt': 'fine\n', '.gitignore': 'build/\n' });
    assert.equal(r.outcome, 'PASS', r.evidence);
    assert.match(r.evidence, /also searched 1 ignored or binary file/);
  });

  it('names what it could not search within its limits, instead of passing (UNKNOWN)', async () => {
    const root = workspace({ '.gitignore': 'logs/\n', 'logs/a.log': 'x\n', 'logs/b.log': 'y\n', 'logs/c.log': 'z\n' });
    const scope = SearchScope.create(root, undefined, [], []);
    const swept = await searchSkippedFiles(scope, /SECRET_TOKEN/, new AbortController().signal, { files: 2, totalBytes: 1_000, fileBytes: 1_000 });
    assert.deepEqual([swept.searched, swept.notSearched], [2, ['logs/c.log']]);
  });
});
