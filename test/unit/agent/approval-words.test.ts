import * as assert from 'node:assert/strict';
import { approveEffect } from '../../../src/agent/approval-words';
import { verificationCommandsRequest } from '../../../src/app/compose-run';

/** Singular and plural in what "Approve" does (issue 28 §10: "Approve run this command" for two commands). */
describe('the words of an approval', () => {
  it('a set of two verification commands is "run these 2 commands"; one is "run this command"', () => {
    const two = verificationCommandsRequest(['node -e "a"', 'node -e "b"'], '/ws');
    assert.equal(two.title, 'Run 2 verification commands');
    assert.equal(approveEffect(two), 'run these 2 commands');
    assert.equal(approveEffect(verificationCommandsRequest(['npm test'], '/ws')), 'run this command');
  });

  it('an edit and a configuration change say what approving them does', () => {
    assert.equal(approveEffect({ kind: 'edit', detail: '+1 -0' }), 'apply this edit (undoable)');
    assert.equal(approveEffect({ kind: 'config', detail: '' }), 'apply this configuration change (this one only)');
  });
});
