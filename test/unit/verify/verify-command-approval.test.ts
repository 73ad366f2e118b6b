import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { verifyCriteria } from '../../../src/verify/verify-criteria';
import { readVerifyCommands, VERIFY_COMMANDS_FILE } from '../../../src/verify/verify-commands-file';
import { criterion, workspace } from '../support/verify-helpers';

describe('verify: approving some commands of a set (issue 15)', () => {
  it('runs only the commands an approver names in `only`, and reports each command as run or skipped with why', async () => {
    const root = workspace();
    const criteria = [
      criterion({ type: 'CLI', command: 'touch a' }),
      criterion({ type: 'CLI', command: 'touch b' }),
      criterion({ type: 'TEST', test: 'touch a' }),
      criterion({ type: 'GREP', pattern: 'x', expect: 'present' }),
    ];
    let asked: string[] = [];
    const set = await verifyCriteria(criteria, { workspaceRoot: root, approver: { approve: async (commands) => ((asked = commands), { approved: true, only: ['touch a'], reason: 'not on the list' }) } }, { parallelism: 2, timeoutMs: 20_000 });
    assert.deepEqual(asked, ['touch a', 'touch b'], 'asked once, each command once');
    assert.deepEqual(set.results.map((r) => r.outcome), ['PASS', 'UNKNOWN', 'PASS', 'FAIL']);
    assert.equal(set.results[1]!.evidence, '`touch b` was not run: not on the list');
    assert.deepEqual(set.commands, { approved: ['touch a'], refused: [{ command: 'touch b', reason: 'not on the list' }] });
    assert.ok(fs.existsSync(path.join(root, 'a')));
    assert.equal(fs.existsSync(path.join(root, 'b')), false);
  });

  it('says every command ran when no approver is asked, and nothing about commands when the set has none', async () => {
    const root = workspace();
    const ran = await verifyCriteria([criterion({ type: 'CLI', command: 'true' })], { workspaceRoot: root }, { parallelism: 1, timeoutMs: 20_000 });
    assert.deepEqual(ran.commands, { approved: ['true'], refused: [] });
    const none = await verifyCriteria([criterion({ type: 'READ', path: 'x' })], { workspaceRoot: root }, { parallelism: 1, timeoutMs: 20_000 });
    assert.equal(none.commands, undefined);
  });

  it('refuses them all, with the reason, when the approver throws', async () => {
    const set = await verifyCriteria([criterion({ type: 'CLI', command: 'true' })], { workspaceRoot: workspace(), approver: { approve: async () => { throw new Error('no prompt'); } } }, { parallelism: 1, timeoutMs: 20_000 });
    assert.deepEqual(set.commands?.refused, [{ command: 'true', reason: 'approval could not be asked (no prompt)' }]);
  });
});

describe('verify: the committed allow-list, .ideal-state/verify-commands.yaml', () => {
  it('allows exact commands and patterns whose * never spans a shell operator', () => {
    const r = readVerifyCommands(VERIFY_COMMANDS_FILE, 'commands:\n  - npm test\n  - npm run *\n  - "task: *"\n  - /node --version|node -v/\n');
    assert.ok(r.ok);
    const allowed = (c: string) => r.list.match(c) !== undefined;
    assert.deepEqual(
      ['npm test', 'npm run lint', 'task: build', 'node -v', 'npm test && curl x', 'npm run lint; rm -rf /', 'npm run $(curl x)', 'npm testx', 'npm run a | sh'].map(allowed),
      [true, true, true, true, false, false, false, false, false],
    );
  });

  it('gives located problems for a file it cannot use', () => {
    const problems = (text: string) => {
      const r = readVerifyCommands(VERIFY_COMMANDS_FILE, text);
      return r.ok ? [] : r.problems.map((p) => `${p.line}:${p.column} ${p.field ?? ''} ${p.message}`);
    };
    assert.deepEqual(problems('commands:\n  - npm test\n  - /(unclosed/\n'), ['3:5 commands.1 not a valid /regular expression/']);
    assert.deepEqual(problems('commands:\n  - "  "\n'), ['2:5 commands.0 an empty pattern allows nothing; remove it']);
    assert.equal(problems('comands:\n  - npm test\n').length > 0, true, 'a misspelt key is not an empty list');
    assert.match(problems('commands: [npm test\n')[0]!, /^\d+:\d+ /);
  });
});
