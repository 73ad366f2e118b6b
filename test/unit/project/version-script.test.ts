import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BUILT_CLI } from '../support/cli-helpers';

/** scripts/version.mjs on a copy of this repository's package.json, package-lock.json, CHANGELOG.md and docs/ci.md. */
const REPO = path.resolve(path.dirname(BUILT_CLI), '..');
const SCRIPT = path.join(REPO, 'scripts', 'version.mjs');
const FILES = ['package.json', 'package-lock.json', 'CHANGELOG.md', 'docs/ci.md'];
const made: string[] = [];

function copy(changed: { changelog?: string; ci?: string } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-version-'));
  made.push(dir);
  fs.mkdirSync(path.join(dir, 'docs'));
  for (const f of FILES) fs.copyFileSync(path.join(REPO, f), path.join(dir, f));
  if (changed.changelog !== undefined) fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), changed.changelog);
  if (changed.ci !== undefined) fs.writeFileSync(path.join(dir, 'docs', 'ci.md'), changed.ci);
  return dir;
}

const script = (dir: string, ...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args, '--root', dir], { encoding: 'utf8' });
const bump = (dir: string, version: string) => script(dir, version, '--date', '2026-12-01');
const text = (dir: string, f: string) => fs.readFileSync(path.join(dir, f), 'utf8');
const json = (dir: string, f: string) => JSON.parse(text(dir, f));
const CURRENT = (JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const CI = `steps:\n      - uses: ideal-state/ideal-state@v${CURRENT}       # at a release tag\n`;

describe('scripts/version.mjs: one version, bumped together', () => {
  after(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sets package.json and package-lock.json, names and dates the Unreleased section, and moves the action pin in docs/ci.md', () => {
    const dir = copy({ changelog: `# Changelog\n\n## Unreleased\n\n- a change\n\n## ${CURRENT}\n\n- the first\n`, ci: CI });
    const r = bump(dir, '9.0.0');
    assert.equal(r.status, 0, r.stderr);
    assert.equal(json(dir, 'package.json').version, '9.0.0');
    assert.equal(json(dir, 'package-lock.json').version, '9.0.0');
    assert.equal(json(dir, 'package-lock.json').packages[''].version, '9.0.0');
    assert.equal(text(dir, 'CHANGELOG.md'), `# Changelog\n\n## 9.0.0 (2026-12-01)\n\n- a change\n\n## ${CURRENT}\n\n- the first\n`);
    assert.equal(text(dir, 'docs/ci.md'), CI.replace(`@v${CURRENT}`, '@v9.0.0'));
    assert.deepEqual(fs.readdirSync(dir).sort(), ['CHANGELOG.md', 'docs', 'package-lock.json', 'package.json'], 'no temporary file left');
    assert.deepEqual(fs.readdirSync(path.join(dir, 'docs')), ['ci.md'], 'no temporary file left');
    const check = script(dir, '--check');
    assert.equal(check.status, 0, check.stderr);
    assert.equal(check.stdout, 'one version: 9.0.0\n');
  });

  it('refuses, changing nothing, a version not newer, versions that already disagree, or no notes at all', () => {
    const cases: Array<[string, string, RegExp]> = [
      [`# Changelog\n\n## Unreleased\n\n- x\n\n## ${CURRENT}\n`, CURRENT, /is not newer than/],
      [`# Changelog\n\n## 8.0.0 (unreleased)\n\n- x\n\n## ${CURRENT}\n`, '9.0.0', /disagree before the bump[^]*"## 8\.0\.0 \(unreleased\)": 8\.0\.0 is not released yet/],
      [`# Changelog\n\n## ${CURRENT}\n\n- x\n`, '9.0.0', /no "## Unreleased" section/],
      [`# Changelog\n\n## Unreleased\n\n- x\n\n## ${CURRENT}\n`, 'v9', /major\.minor\.patch/],
    ];
    for (const [changelog, version, error] of cases) {
      const dir = copy({ changelog, ci: CI });
      const before = FILES.map((f) => text(dir, f));
      const r = bump(dir, version);
      assert.equal(r.status, 2, `${version}: ${r.stdout}`);
      assert.match(r.stderr, error);
      assert.deepEqual(FILES.map((f) => text(dir, f)), before, 'nothing written');
    }
  });

  it('--check names each file that says another version, one line each', () => {
    const dir = copy({
      changelog: `# Changelog\n\n## ${CURRENT}\n\n- x\n\n## Unreleased\n\n- y\n\n## 99.0.0 (unreleased)\n\n## Next\n`,
      ci: `${CI}      - uses: someone/ideal-state@v0.0.9\n`,
    });
    const lock = json(dir, 'package-lock.json');
    lock.packages[''].version = '0.0.1';
    fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
    const plugins = path.join(dir, 'plugins');
    fs.mkdirSync(path.join(plugins, 'one', '.claude-plugin'), { recursive: true });
    fs.writeFileSync(path.join(plugins, 'one', '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'ideal-state', version: '0.0.2' }));
    fs.writeFileSync(path.join(plugins, 'one', 'marketplace.json'), JSON.stringify({ plugins: [{ name: 'ideal-state', version: CURRENT }, { name: 'x', version: '0.0.3' }] }));
    fs.writeFileSync(path.join(plugins, 'one', 'hooks.json'), JSON.stringify({ version: 1 }));
    const r = script(dir, '--check', '--plugins', plugins);
    assert.equal(r.status, 2, r.stdout);
    const lines = r.stderr.split('\n').slice(1).filter(Boolean).map((l) => l.trim());
    const expected = [
      /^package-lock\.json's packages\[""\]\.version is 0\.0\.1, package\.json says /,
      /^CHANGELOG\.md:7 "## Unreleased": the unreleased notes go in the first section/,
      /^CHANGELOG\.md:11 "## 99\.0\.0 \(unreleased\)": 99\.0\.0 is not released yet/,
      /^CHANGELOG\.md:11 "## 99\.0\.0 \(unreleased\)": not older than the section above it/,
      /^CHANGELOG\.md:13 "## Next": a section is "## Unreleased" or "## <major\.minor\.patch>"/,
      /^docs\/ci\.md pins the action at v0\.0\.9, package\.json says /,
      /^docs\/ci\.md pins the action from someone\/ideal-state, but the workflows `schedule add` writes use ideal-state\/ideal-state \(the default: package\.json has no repository\)$/,
      /^one\/\.claude-plugin\/plugin\.json version is 0\.0\.2, package\.json says .*npm run build:plugins/,
      /^one\/marketplace\.json plugins\[1\]\.version is 0\.0\.3/,
    ];
    for (const e of expected) assert.ok(lines.some((l) => e.test(l)), `${e} in\n${r.stderr}`);
    assert.equal(lines.length, expected.length, r.stderr);
  });

  it('--check holds the pin to the repository the written workflows use: package.json\'s `repository` when set', () => {
    const dir = copy({ ci: CI });
    const manifest = json(dir, 'package.json');
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, repository: { type: 'git', url: 'git+https://github.com/acme/fork.git' } }));
    const r = script(dir, '--check');
    assert.equal(r.status, 2, r.stdout);
    assert.match(r.stderr, /docs\/ci\.md pins the action from ideal-state\/ideal-state, but the workflows `schedule add` writes use acme\/fork \(package\.json's repository\)/);
    fs.writeFileSync(path.join(dir, 'docs', 'ci.md'), CI.replace('ideal-state/ideal-state@', 'acme/fork@'));
    const ok = script(dir, '--check');
    assert.equal(ok.status, 0, ok.stderr);
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ ...manifest, repository: 'https://gitlab.com/acme/fork' }));
    assert.match(script(dir, '--check').stderr, /package\.json's repository "https:\/\/gitlab\.com\/acme\/fork" is not a GitHub repository/);
  });

  it('--check: a newest section older than package.json, a missing pin, an empty plugins folder', () => {
    const dir = copy({ changelog: '# Changelog\n\n## Unreleased\n\n## 0.0.1\n', ci: 'uses: actions/checkout@v4\n' });
    fs.mkdirSync(path.join(dir, 'plugins'));
    const r = script(dir, '--check', '--plugins', path.join(dir, 'plugins'));
    assert.equal(r.status, 2, r.stdout);
    assert.match(r.stderr, new RegExp(`CHANGELOG\\.md's newest section is 0\\.0\\.1, but package\\.json says ${CURRENT.replace(/\./g, '\\.')}`));
    assert.match(r.stderr, /docs\/ci\.md pins no release of the action/);
    assert.match(r.stderr, /plugins holds no plugin manifest with a version/);
  });

  it('this repository says one version: package.json, package-lock.json, the CHANGELOG, the action pin and the plugins built from it', () => {
    const plugins = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-version-plugins-'));
    made.push(plugins);
    const built = spawnSync(process.execPath, [path.join(REPO, 'scripts', 'build-plugins.mjs'), '--out', plugins], { encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
    const r = spawnSync(process.execPath, [SCRIPT, '--check', '--plugins', plugins], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, `one version: ${CURRENT}\n`);
  });
});
