import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { confineGlob, confinePath } from '../../../src/verify/confine';
import { workspace } from '../support/verify-helpers';

describe('verify: paths stay inside the workspace', () => {
  it('resolves relative paths inside, existing or not', async () => {
    const root = workspace({ 'src/a.ts': 'x' });
    assert.deepEqual(await confinePath(root, 'src/a.ts'), { ok: true, absolute: path.join(root, 'src', 'a.ts'), relative: 'src/a.ts', exists: true });
    const missing = await confinePath(root, 'src/new/b.ts');
    assert.ok(missing.ok && !missing.exists && missing.relative === 'src/new/b.ts');
    const dotted = await confinePath(root, 'src/../src/./a.ts');
    assert.ok(dotted.ok && dotted.relative === 'src/a.ts');
  });

  it('rejects a ../ escape and an absolute path elsewhere, with the reason', async () => {
    const root = workspace({ 'a.txt': 'x' });
    const up = await confinePath(root, '../outside.txt');
    assert.deepEqual(up, { ok: false, reason: '"../outside.txt" leads outside the workspace' });
    const deep = await confinePath(root, 'src/../../x');
    assert.equal(deep.ok, false);
    const abs = await confinePath(root, '/etc/passwd');
    assert.deepEqual(abs, { ok: false, reason: '"/etc/passwd" is an absolute path outside the workspace' });
    const inside = await confinePath(root, path.join(root, 'a.txt'));
    assert.ok(inside.ok && inside.relative === 'a.txt');
  });

  it('rejects a symlink, or a path through one, whose target is outside', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-outside-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'x');
    const root = workspace({ 'real/file.txt': 'x' });
    fs.symlinkSync(outside, path.join(root, 'linkdir'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'innerlink'));
    for (const p of ['linkdir/secret.txt', 'link.txt', 'linkdir', 'linkdir/not-there.txt']) {
      const r = await confinePath(root, p);
      assert.equal(r.ok, false, p);
      assert.match((r as { reason: string }).reason, /symbolic link that points outside the workspace/);
    }
    const inner = await confinePath(root, 'innerlink/file.txt');
    assert.ok(inner.ok && inner.exists, 'a link that stays inside is fine');
  });

  it('judges a workspace opened through a symlink (as an editor may) by where its files really are', async () => {
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-outside-'));
    fs.writeFileSync(path.join(outside, 'PRD-elsewhere.md'), '# elsewhere\n');
    const real = workspace({ '.ideal-state/prds/PRD-x.md': '# x\n' });
    fs.symlinkSync(path.join(outside, 'PRD-elsewhere.md'), path.join(real, '.ideal-state', 'prds', 'PRD-link.md'));
    const opened = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-opened-')), 'ws');
    fs.symlinkSync(real, opened);
    const inside = await confinePath(opened, '.ideal-state/prds/PRD-x.md');
    assert.ok(inside.ok && inside.exists && inside.relative === '.ideal-state/prds/PRD-x.md', JSON.stringify(inside));
    const viaAbsolute = await confinePath(opened, path.join(opened, '.ideal-state', 'prds', 'PRD-x.md'));
    assert.ok(viaAbsolute.ok && viaAbsolute.exists, JSON.stringify(viaAbsolute));
    assert.deepEqual(await confinePath(opened, '.ideal-state/prds/PRD-link.md'), { ok: false, reason: '".ideal-state/prds/PRD-link.md" goes through a symbolic link that points outside the workspace' });
  });

  it('never throws, even for odd input', async () => {
    const root = workspace();
    assert.deepEqual(await confinePath(root, ''), { ok: false, reason: 'the path is empty' });
    assert.equal((await confinePath(root, 'a\0b')).ok, false);
  });

  it('checks globs: relative, no .. segment', () => {
    assert.deepEqual(confineGlob('src/**/*.ts'), { ok: true });
    assert.equal(confineGlob('../**').ok, false);
    assert.equal(confineGlob('src/../../x/*').ok, false);
    assert.equal(confineGlob('/etc/*').ok, false);
  });
});
