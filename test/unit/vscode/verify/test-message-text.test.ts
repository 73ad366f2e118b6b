import * as assert from 'node:assert/strict';
import { skippedOutputText, testMessageText, verifyFailedText, wrap } from '../../../../src/vscode/verify/test-message-text';

/** A code the product keeps in files, never on a screen: UNKNOWN, UNSUPPORTED_CLAIM, CRITICAL. */
const CODE = /\b[A-Z]{2,}(?:_[A-Z]+)*\b/;

describe('Test Results: the words of a criterion\'s result in VS Code\'s Testing view', () => {
  const evidence = 'the verifier found no line of src/greet.js that calls farewell with an empty name and checks that it throws';

  it('says the verdict in the product\'s words, never the codes', () => {
    const text = testMessageText({ outcome: 'UNKNOWN', evidence, failureLabel: 'UNSUPPORTED_CLAIM' }, 'errored');
    assert.equal(text.split('\n')[0], 'No verdict: claim without evidence');
    assert.doesNotMatch(text, CODE);
    assert.match(text, /A critical criterion must pass: no verdict is not a pass\./);
    const failed = testMessageText({ outcome: 'FAIL', evidence: 'exit 1', repairTarget: 'farewell("") throws', failureLabel: 'REQUIREMENT_COVERAGE' }, 'failed');
    assert.equal(failed, 'Fails: requirement not covered\nexit 1\nMust become true: farewell("") throws');
    assert.equal(testMessageText({ outcome: 'PARTIAL', evidence: '2 of 3' }, 'failed'), 'Partly met\n2 of 3');
    assert.equal(skippedOutputText('ISC-3', { outcome: 'UNKNOWN', evidence: 'no rg', failureLabel: 'EXECUTION_ERROR' }), 'ISC-3 — no verdict: the check could not\nrun: no rg');
    // The output goes to a terminal as wide as the panel: short lines, every word whole.
    const output = skippedOutputText('ISC-DEMO-006', { outcome: 'UNKNOWN', evidence, failureLabel: 'UNSUPPORTED_CLAIM' }).split('\n');
    for (const line of output) assert.ok(line.length <= 40, `at most 40 characters: ${line}`);
    assert.equal(output.join(' '), `ISC-DEMO-006 — no verdict: claim without evidence: ${evidence}`);
    assert.equal(verifyFailedText('the file has no criteria'), 'Not verified\nthe file has no criteria');
  });

  it('wraps long evidence at spaces, so the narrow Test Results column never breaks a word', () => {
    const lines = testMessageText({ outcome: 'FAIL', evidence: `${evidence} ${evidence}` }, 'failed').split('\n');
    assert.ok(lines.length > 2, 'the evidence is on several lines');
    for (const line of lines) assert.ok(line.length <= 72, `at most 72 characters: ${line}`);
    // Every word is whole: joined again, the lines give the evidence back.
    assert.equal(lines.slice(1).join(' '), `${evidence} ${evidence}`);
    assert.deepEqual(wrap('a\n\nb'), ['a', 'b']);
    const long = 'x'.repeat(90);
    assert.deepEqual(wrap(`see ${long} here`), ['see', long, 'here'], 'a word longer than a line stays whole on its own line');
  });
});
