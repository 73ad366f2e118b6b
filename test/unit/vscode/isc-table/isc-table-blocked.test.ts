import * as assert from 'node:assert/strict';
import { agentBlockedOfPrd, withBlockedStatus } from '../../../../src/app/gate/agent-blocked';
import { tableLock } from '../../../../src/vscode/isc-table/snapshot';
import { headerStatus } from '../../../../webviews/isc-table/header-state';
import type { TableRow } from '../../../../webviews/isc-table/protocol';

/**
 * The honest exit in the ISC table: a PRD the agent stopped on with `gate blocked` (status
 * BLOCKED, its reason in the frontmatter) is shown as BLOCKED in the agent's words, never as done
 * — even where the run ended COMPLETE and its rows pass.
 */
const PRD = '---\nprd: true\nid: PRD-20261128-x\nstatus: IN_PROGRESS\n---\n\n# X\n\n## Ideal State Criteria\n\n- [ ] ISC-X-001: A changelog file at the top level records every release made | Verify: Read: CHANGELOG.md\n';
const row = (id: string): TableRow => ({ id, kind: 'criterion', text: id, priority: 'CRITICAL', source: 'EXPLICIT', status: 'DONE', stale: false, locations: [], outcome: 'PASS' });

describe('ISC table: a PRD the agent stopped on through the honest exit', () => {
  it('the gate writes status BLOCKED and the reason into the frontmatter; the table reads both back', () => {
    const reason = 'The release notes "v2" need the maintainer\n(only they have them)';
    const text = withBlockedStatus(PRD, reason);
    assert.match(text, /^status: BLOCKED$/m);
    assert.deepEqual(agentBlockedOfPrd(text), { reason: 'The release notes "v2" need the maintainer (only they have them)' });
    // Blocked twice: one reason, the latest.
    assert.deepEqual(agentBlockedOfPrd(withBlockedStatus(text, 'another reason')), { reason: 'another reason' });
    assert.equal(agentBlockedOfPrd(PRD), undefined, 'any other status is not blocked');
    assert.deepEqual(agentBlockedOfPrd(withBlockedStatus(PRD)), {}, 'BLOCKED with no reason kept');
  });

  it('the lock line carries it, and the header says BLOCKED with the reason instead of COMPLETE', () => {
    const lock = tableLock({ prdPath: '.ideal-state/prds/x.md', state: 'locked', changes: [], revertible: [] }, true, undefined, { reason: 'needs the maintainer' });
    assert.deepEqual(lock.agentBlocked, { reason: 'needs the maintainer' });
    assert.equal(tableLock({ prdPath: 'x.md', state: 'locked', changes: [], revertible: [] }, true).agentBlocked, undefined);
    const complete = { state: 'COMPLETE', exitReason: 'every CRITICAL criterion verified PASS' };
    const s = headerStatus(complete, [row('ISC-1'), row('ISC-2')], lock.agentBlocked);
    assert.equal(s.word, 'BLOCKED');
    assert.equal(s.tone, 'fail');
    assert.equal(s.reason, 'the agent said it cannot finish and needs a person: "needs the maintainer"; not done');
    assert.equal(headerStatus(complete, [row('ISC-1')]).word, 'COMPLETE', 'without it, as before');
  });

  it('a run that ended BLOCKED itself (its commands denied) gives its own reason, never "the agent said"', () => {
    const denied = { state: 'BLOCKED', exitReason: 'needs your approval: `node -e 1` was not approved, so ISC-2 cannot be proven' };
    // The run wrote status BLOCKED in its PRD, which reads as an agent's honest exit too.
    const s = headerStatus(denied, [row('ISC-1'), row('ISC-2')], { reason: 'needs your approval' });
    assert.equal(s.word, 'BLOCKED');
    assert.equal(s.reason, denied.exitReason);
  });
});
