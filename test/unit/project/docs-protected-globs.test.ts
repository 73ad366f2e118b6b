import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_PROTECTED_GLOBS } from '../../../src/app/gate/lock-inputs';
import { REPO_ROOT } from '../support/repo-root';

const ROOT = REPO_ROOT;

describe('docs/agents.md: the default protected globs', () => {
  it('names every glob a lock protects by default, and no other', () => {
    const text = fs.readFileSync(path.join(ROOT, 'docs/agents.md'), 'utf8');
    const start = text.indexOf('The default `protected:` covers');
    assert.ok(start >= 0, 'docs/agents.md lost its sentence on the default protected globs');
    const sentence = text.slice(start, text.indexOf('set your own', start));
    const named = [...sentence.matchAll(/`([^`]+)`/g)].map((m) => m[1]).filter((g) => g.includes('*'));
    assert.deepEqual([...named].sort(), [...DEFAULT_PROTECTED_GLOBS].sort());
  });
});
