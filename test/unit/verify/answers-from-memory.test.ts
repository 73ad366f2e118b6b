import * as assert from 'node:assert/strict';
import { loadEffortTable } from '../../../src/model/effort-table';
import { checkPrd } from '../../../src/prd/check';
import { evidenceRedactor } from '../../../src/verify/secret-env';
import { readVerifyCommands } from '../../../src/verify/verify-commands-file';

/**
 * What the MCP server asks again at every call is answered from memory while its input is the
 * same (issue 26): the last PRD checked and the last allow-list read. A remembered answer is
 * frozen, so no reader can change what the next one gets; new text is read anew.
 */
const PRD = (criterion: string) =>
  `---\nprd: true\nid: PRD-20261127-memory\nstatus: IN_PROGRESS\neffort_level: STANDARD\n---\n\n# Memory\n\n## Ideal State Criteria\n- [ ] ISC-1: ${criterion} | Verify: Read: README.md | contains: Install\n`;

describe('answers from memory: the last PRD checked, the last allow-list read (issue 26)', () => {
  it('checkPrd gives the same frozen answer for the same text, and reads a changed text anew', () => {
    const text = PRD('The readme names the install section for new users');
    const first = checkPrd(text);
    const again = checkPrd(text);
    assert.equal(again, first);
    assert.ok(Object.isFrozen(first.document.criteria[0]), 'a criterion of the remembered answer is frozen');
    assert.throws(() => {
      (first.document.criteria as unknown[]).push({});
    }, TypeError);
    const changed = checkPrd(PRD('The readme names the upgrade section for old users'));
    assert.notEqual(changed, first);
    assert.match(changed.document.criteria[0]!.text, /upgrade section/);
    // The first text again: parsed again, the same content.
    assert.deepEqual(checkPrd(text).document.criteria.map((c) => c.text), first.document.criteria.map((c) => c.text));
  });

  it('checkPrd with a workspace effort table is not remembered: a table is not part of the text', () => {
    const text = PRD('The readme names the install section for new users');
    const table = loadEffortTable({ file: 'e.yaml', text: 'version: 1\nlevels:\n  STANDARD:\n    minCriteria: 1\n' }).table;
    const withTable = checkPrd(text, { effortTable: table });
    assert.notEqual(checkPrd(text, { effortTable: table }), withTable);
    assert.equal(Object.isFrozen(withTable.document), false);
    // Its diagnostics are the table's, not those of the shipped one remembered for the same text.
    assert.notDeepEqual(
      withTable.diagnostics.map((d) => d.rule),
      checkPrd(text).diagnostics.map((d) => d.rule),
    );
  });

  it('readVerifyCommands gives the same answer for the same file and text, a new one for a changed text', () => {
    const first = readVerifyCommands('.ideal-state/verify-commands.yaml', 'commands:\n  - npm test\n');
    assert.equal(readVerifyCommands('.ideal-state/verify-commands.yaml', 'commands:\n  - npm test\n'), first);
    assert.ok(first.ok && first.list.match('npm test') === 'npm test');
    const changed = readVerifyCommands('.ideal-state/verify-commands.yaml', 'commands:\n  - npm run lint\n');
    assert.ok(changed.ok && changed.list.match('npm test') === undefined && changed.list.match('npm run lint') === 'npm run lint');
    const bad = readVerifyCommands('.ideal-state/verify-commands.yaml', 'commands: [\n');
    assert.equal(bad.ok, false);
    assert.equal(readVerifyCommands('.ideal-state/verify-commands.yaml', 'commands: [\n').ok, false, 'a list that cannot be read stays so');
  });

  it('a verification set redacts against the environment as it was when the set began', () => {
    const env = { PATH: '/usr/bin', IDEAL_STATE_MEMO_TEST_TOKEN: 'memo-test-value-1234567890' };
    const redact = evidenceRedactor(env);
    const r = redact('the output printed memo-test-value-1234567890 once');
    assert.equal(r.count, 1);
    assert.doesNotMatch(r.text, /memo-test-value/);
  });
});
