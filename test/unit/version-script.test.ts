import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUILT_CLI } from './cli-helpers';

/** scripts/version.mjs on a copy of this repository's package.json, package-lock.json and CHANGELOG.md. */
const REPO = path.resolve(path.dirname(BUILT_CLI), '..');
const SCRIPT = path.join(REPO, 'scripts', 'version.mjs');

function copy(changelog?: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-version-'));
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(REPO, f), path.join(dir, f));
  fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), changelog ?? fs.readFileSync(path.join(REPO, 'CHANGELOG.md'), 'utf8'));
  return dir;
}

const bump = (dir: string, ...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args, '--root', dir, '--date', '2026-12-01'], { encoding: 'utf8' });
const json = (dir: string, f: string) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
const CURRENT = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;

describe('scripts/version.mjs: one version, bumped together', () => {
  it('sets package.json and package-lock.json and dates the unreleased CHANGELOG section', () => {
    const dir = copy('# Changelog\n\n## 9.0.0 (unreleased)\n\n- a change\n\n## 0.1.0\n\n- the first\n');
    const r = bump(dir, '9.0.0');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(json(dir, 'package.json').version, '9.0.0');
    assert.equal(json(dir, 'package-lock.json').version, '9.0.0');
    assert.equal(json(dir, 'package-lock.json').packages[''].version, '9.0.0');
    assert.equal(fs.readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'), '# Changelog\n\n## 9.0.0 (2026-12-01)\n\n- a change\n\n## 0.1.0\n\n- the first\n');
    assert.deepEqual(fs.readdirSync(dir).sort(), ['CHANGELOG.md', 'package-lock.json', 'package.json'], 'no temporary file left');
  });

  it('refuses, changing nothing, a version not newer, notes for another version, or no notes at all', () => {
    const cases: Array<[string, string, RegExp]> = [
      ['# Changelog\n\n## Unreleased\n\n- x\n', CURRENT, /is not newer than/],
      ['# Changelog\n\n## 8.0.0 (unreleased)\n\n- x\n', '9.0.0', /unreleased section is for 8\.0\.0, not 9\.0\.0/],
      ['# Changelog\n\n## 0.1.0\n\n- x\n', '9.0.0', /no unreleased section/],
      ['# Changelog\n\n## Unreleased\n\n- x\n', 'v9', /major\.minor\.patch/],
    ];
    for (const [changelog, version, error] of cases) {
      const dir = copy(changelog);
      const before = ['package.json', 'package-lock.json', 'CHANGELOG.md'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
      const r = bump(dir, version);
      assert.equal(r.status, 2, `${version}: ${r.stdout}`);
      assert.match(r.stderr, error);
      assert.deepEqual(['package.json', 'package-lock.json', 'CHANGELOG.md'].map((f) => fs.readFileSync(path.join(dir, f), 'utf8')), before, 'nothing written');
    }
  });

  it('this repository’s own CHANGELOG takes the next release: its unreleased section is the one a bump dates', () => {
    const dir = copy();
    const unreleased = /^## (\d+\.\d+\.\d+) \(unreleased\)$/m.exec(fs.readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'));
    assert.ok(unreleased, 'CHANGELOG.md has an unreleased section at the top');
    const r = bump(dir, unreleased[1]!);
    assert.equal(r.status, 0, r.stderr);
    assert.match(fs.readFileSync(path.join(dir, 'CHANGELOG.md'), 'utf8'), new RegExp(`^## ${unreleased[1]!.replace(/\./g, '\\.')} \\(2026-12-01\\)$`, 'm'));
  });
});
