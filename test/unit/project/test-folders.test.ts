import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/repo-root';

/**
 * test/unit/ mirrors src/, so a reader finds a module's tests by its path: the tests of
 * src/app/gate/ sit in test/unit/app/gate/. Besides the mirrored folders there are only
 * project/ (tests of the whole project: layering, docs, bundles, the harness), support/ (helpers
 * shared by tests of several folders) and fixtures/ (data the tests read).
 */
const PROJECT = 'project';
const SUPPORT = 'support';
const FIXTURES = 'fixtures';

/** Every file under `dir`, as paths relative to it with '/' between folders. */
function filesUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    return e.isDirectory() ? filesUnder(path.join(dir, e.name), rel) : [rel];
  });
}

/** Every folder under `dir`, relative to it with '/' between folders. */
function foldersUnder(dir: string, prefix = ''): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).flatMap((e) => {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    return [rel, ...foldersUnder(path.join(dir, e.name), rel)];
  });
}

/** What is wrong with where each file of test/unit/ sits, one line per file; none when the mirror holds. */
function misplaced(unitFiles: readonly string[], srcFolders: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  for (const file of unitFiles) {
    const folder = path.posix.dirname(file);
    const top = file.split('/')[0];
    const isTest = /\.(test|child)\.ts$/.test(file);
    if (folder === '.') {
      problems.push(`${file}: at the top of test/unit/; move it to the folder of the src/ module it tests (or ${PROJECT}/, ${SUPPORT}/)`);
    } else if (top === FIXTURES || top === SUPPORT) {
      if (isTest) problems.push(`${file}: a test in ${top}/, which holds no tests; move it to the folder of the src/ module it tests`);
    } else if (top !== PROJECT && !srcFolders.has(folder)) {
      problems.push(`${file}: test/unit/${folder}/ has no counterpart src/${folder}/; move it to the folder of the src/ module it tests (or ${PROJECT}/)`);
    }
  }
  return problems;
}

describe('test/unit/ mirrors src/', () => {
  it('names a test at the top, in a folder src/ does not have, or in support/ or fixtures/', () => {
    const src = new Set(['app', 'app/gate', 'cli']);
    assert.deepEqual(misplaced(['app/gate/lock.test.ts', 'cli/main.test.ts', 'project/layering.test.ts', 'project/deep/docs.test.ts', 'support/builders.ts', 'fixtures/prd/a.md', 'fixtures/llm/fake.ts'], src), []);
    assert.deepEqual(
      misplaced(['gate.test.ts', 'builders.ts', 'gates/lock.test.ts', 'app/gat/lock.child.ts', 'app/gate/hosts/x.test.ts', 'support/x.test.ts', 'fixtures/y.child.ts'], src).map((p) => p.split(':')[0]),
      ['gate.test.ts', 'builders.ts', 'gates/lock.test.ts', 'app/gat/lock.child.ts', 'app/gate/hosts/x.test.ts', 'support/x.test.ts', 'fixtures/y.child.ts'],
    );
  });

  it('holds for every file in test/unit/', () => {
    const unit = path.join(REPO_ROOT, 'test', 'unit');
    const files = filesUnder(unit);
    assert.ok(files.some((f) => f === 'project/test-folders.test.ts'), `read the tree at ${unit}`);
    assert.deepEqual(misplaced(files, new Set(foldersUnder(path.join(REPO_ROOT, 'src')))), []);
  });
});
