import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { storeProblems } from '../../bench/harness/vsix-checks.mjs';
import { vsixPath } from '../harness/paths.mjs';

/** What Open VSX and the Marketplace check of the .vsix `npm run package` made (bench/harness/vsix-checks.mjs). */
describe('the packaged .vsix against the stores\' checks', () => {
  const unzip = (...args) => spawnSync('unzip', [...args], { maxBuffer: 64 << 20 });
  const files = () => unzip('-Z1', vsixPath).stdout.toString('utf8').split('\n').filter(Boolean);
  const read = (p) => unzip('-p', vsixPath, p).stdout;
  const manifest = () => JSON.parse(read('extension/package.json').toString('utf8'));

  it('passes every check, with each README image inside the package', () => {
    assert.deepEqual(storeProblems(manifest(), files(), read), []);
    const readme = read('extension/readme.md').toString('utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length >= 2 && images.every((i) => files().includes(`extension/${i}`)), JSON.stringify(images));
  });

  it('names what a store would refuse', () => {
    const good = manifest();
    const bad = { ...good, publisher: 'ideal state', version: '1.0', license: '', activationEvents: ['*'], galleryBanner: { color: '#1E3A5F', theme: 'blue' }, description: `a\u0007b`, homepage: 'docs/index.html', icon: 'media/icon.svg' };
    const withoutLicenseFile = files().filter((f) => !/LICENSE/i.test(f) && !/readme\/isc-table/.test(f));
    const problems = storeProblems(bad, withoutLicenseFile, read);
    for (const expected of [/^publisher .*"ideal state" has characters outside/, /^version "1\.0" is not a semantic version/, /^license is missing/, /^no LICENSE file/, /^activationEvents holds '\*'/, /^galleryBanner\.theme "blue"/, /^description holds a control or format character \(U\+0007 at 1\)/, /^homepage is not an absolute URL/, /^icon media\/icon\.svg is not a PNG/, /^README image media\/readme\/isc-table\.png is not in the package/]) {
      assert.ok(problems.some((p) => expected.test(p)), `${expected} in ${JSON.stringify(problems, null, 1)}`);
    }
    assert.equal(problems.length, 10, JSON.stringify(problems, null, 1));
  });

  it('ships no README image as a URL a store would not show', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    for (const [, link] of readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)) assert.match(link, /^media\/readme\/[\w-]+\.png$/);
  });
});
