import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ApprovalPolicy, denyAll } from '../../../src/agent/approvals';
import { NodeWorkspace } from '../../../src/agent/node-workspace';
import { SpecialistAgent } from '../../../src/agent/specialist-agent';
import { shippedCapabilities } from '../../../src/algorithm/capabilities';
import type { PacketAssignment } from '../../../src/algorithm/ports';
import { shippedRoles } from '../../../src/algorithm/roles';
import { scriptedRouter, tempDir } from '../support/algorithm-helpers';

describe('algorithm: a specialist past EXECUTE\'s share of the budget', () => {
  it('takes no further step once its time is up, keeps what it did, and says why it stopped', async () => {
    const workspace = tempDir('agent-time');
    // The scripted provider (a test tool): three steps that each write a file, then a closing answer.
    const write = (n: number) => ({ toolCalls: [{ name: 'create_file', arguments: { path: `f${n}.txt`, text: `${n}\n` } }] });
    const { router, model } = scriptedRouter([write(1), write(2), write(3), { text: JSON.stringify({ summary: 'all written' }) }]);
    const agent = new SpecialistAgent({
      models: router,
      role: shippedRoles().specialist,
      files: new NodeWorkspace(workspace),
      approvals: new ApprovalPolicy(denyAll, { trusted: true, autoApproveEdits: true, allowCommands: [] }),
      checkpointFor: () => ({ before: () => undefined }),
      tools: (level) => shippedCapabilities().levels[level].tools,
    });
    let steps = 0;
    const assignment: PacketAssignment = {
      runId: 'run-test',
      iteration: 1,
      level: 'STANDARD',
      workerId: 'w1',
      packet: { id: 'pkt-1-1', runId: 'run-test', iteration: 1, title: 'Write three files', criterionIds: ['ISC-1'], dependsOn: [], status: 'CLAIMED', createdAt: new Date().toISOString(), updatedAt: new Date().toISOString() },
      view: { role: 'specialist', request: 'Write three files', packet: { id: 'pkt-1-1', title: 'Write three files' }, criteria: [], reportsOnItsWork: [] },
      maxSteps: 10,
      // The share runs out after the second step.
      timeUp: () => steps >= 2,
      onEvent: (e) => {
        if (e.kind === 'model') steps++;
      },
    };
    const work = await agent.work(assignment, new AbortController().signal);
    assert.equal(model.requests.length, 2, 'no third model call');
    assert.deepEqual(fs.readdirSync(workspace).filter((f) => f.endsWith('.txt')).sort(), ['f1.txt', 'f2.txt']);
    assert.equal(work.edits.length, 2, 'the edits made are kept for the verifier');
    assert.match(work.summary, /stopped after 2 steps: EXECUTE's share of the budget was spent/);
    assert.equal(work.blocked, undefined, 'running out of time is not a person saying no');
    assert.ok(fs.existsSync(path.join(workspace, 'f2.txt')));
  });
});
