import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkPrd } from '../../../src/prd/check';
import { REPO_ROOT } from '../support/repo-root';

const PRDS = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace/.ideal-state/prds');

/**
 * The PRDs a newcomer opens first (the sample workspace's, what `npm start` shows) pass
 * `ideal-state prd check` with no finding at all: a demo that fails its own linter teaches
 * the wrong thing. The PRDs the scripted demos write are linted in run-demo.test.ts.
 */
describe('the sample workspace PRDs', () => {
  const files = fs.readdirSync(PRDS).filter((f) => f.endsWith('.md'));

  it('are there to check', () => {
    assert.ok(files.length >= 3, `found ${files.join(', ')}`);
  });

  for (const file of files) {
    it(`${file} passes the linter with no error or warning`, () => {
      const { document, diagnostics } = checkPrd(fs.readFileSync(path.join(PRDS, file), 'utf8'));
      assert.ok(document.criteria.length > 0, 'it has criteria to lint');
      assert.deepEqual(diagnostics.map((d) => `${file}:${d.line + 1}: ${d.message} [${d.rule}]`), []);
    });
  }
});
