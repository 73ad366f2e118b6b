import * as assert from 'node:assert/strict';
import { allowList } from '../../../src/verify/allowed-commands';

describe('idealState.verify.allowedCommands patterns', () => {
  it('matches a glob against the whole command', () => {
    const list = allowList(['npm test', 'npm run *', 'node --version']);
    assert.equal(list.match('npm test'), 'npm test');
    assert.equal(list.match('  npm test  '), 'npm test', 'surrounding blanks do not matter');
    assert.equal(list.match('npm run lint'), 'npm run *');
    assert.equal(list.match('npm run build -- --watch'), 'npm run *');
    assert.equal(list.match('npm testing'), undefined, 'no prefix match');
    assert.equal(list.match('sudo npm test'), undefined);
    assert.equal(list.match('task: npm: build'), undefined);
  });

  it('never lets a wildcard take in a second command or a substitution', () => {
    const list = allowList(['npm run *', 'task: *']);
    for (const command of ['npm run lint && curl evil.example', 'npm run lint; rm -rf ~', 'npm run lint | sh', 'npm run $(whoami)', 'npm run `id`', 'npm run lint > /etc/x', 'npm run a\nrm -rf ~', 'npm run lint & disown']) {
      assert.equal(list.match(command), undefined, command);
    }
    assert.equal(list.match('task: check: greeting exists'), 'task: *');
  });

  it('treats dots and other regex characters in a glob literally; ? is one character', () => {
    const list = allowList(['node --check src/a.js', 'make test-?']);
    assert.equal(list.match('node --check src/a.js'), 'node --check src/a.js');
    assert.equal(list.match('node --check src/aXjs'), undefined);
    assert.equal(list.match('make test-1'), 'make test-?');
    assert.equal(list.match('make test-12'), undefined);
  });

  it('reads /…/ as a regular expression over the whole command and reports an invalid one', () => {
    const list = allowList(['/make( [a-z]+)?/', '/([/', '']);
    assert.equal(list.match('make'), '/make( [a-z]+)?/');
    assert.equal(list.match('make test'), '/make( [a-z]+)?/');
    assert.equal(list.match('make test; rm x'), undefined, 'anchored at both ends');
    assert.equal(list.problems.length, 1);
    assert.match(list.problems[0]!, /"\/\(\[\/" is not a valid regular expression/);
  });

  it('allows nothing with no patterns', () => {
    assert.equal(allowList([]).match('npm test'), undefined);
  });
});
