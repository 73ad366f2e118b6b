import * as assert from 'node:assert/strict';
import { loadPhaseGraph } from '../../../src/algorithm/phase-graph';
import { loadCapabilities } from '../../../src/algorithm/capabilities';
import { verifierMessages } from '../../../src/algorithm/prompts';
import { loadRoles, shippedRoles } from '../../../src/algorithm/roles';
import { aCriterion } from '../support/builders';
import * as path from 'node:path';
import { denyAll } from '../../../src/agent/approvals';
import { nodeAlgorithm } from '../../../src/app/node-run';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { LlmConfig } from '../../../src/llm/config';
import { Script, ScriptedModel } from '../../../src/llm/providers/scripted';
import { ModelRouter } from '../../../src/llm/router';
import { Store } from '../../../src/store/store';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, tempDir, type Step } from '../support/algorithm-helpers';

describe('algorithm: roles, views and data files', () => {
  it("builds the verifier's prompt from the auditor view only: no decisions log, no other candidate", async function () {
    this.timeout(30_000);
    const texts = ['Release notes mention the new export command', 'Release notes credit every contributor by name'];
    const steps: Step[] = [
      { object: { criteria: texts.map((text) => ({ text })), decisions: [{ decision: 'DECISION-LOG-MARKER keep notes short', rationale: 'RATIONALE-MARKER nobody reads long notes' }] } },
      { object: { criteria: texts.map((text, i) => ({ id: `ISC-${i + 1}`, text })) } },
      { object: { packets: [{ title: 'Export note', criterionIds: ['ISC-1'] }, { title: 'Credits', criterionIds: ['ISC-2'] }] } },
      { object: { methods: texts.map((text, i) => ({ criterionId: `ISC-${i + 1}`, verify: { type: 'CUSTOM', description: `A reader confirms: ${text}` } })) } },
      { text: JSON.stringify({ summary: 'CANDIDATE-A-MARKER wrote the export note', evidence: ['EVIDENCE-A'] }) },
      { text: JSON.stringify({ summary: 'CANDIDATE-B-MARKER wrote the credits', evidence: ['EVIDENCE-B'] }) },
      { object: { outcome: 'PASS', evidence: 'the note mentions export' } },
      { object: { outcome: 'PASS', evidence: 'the credits list names' } },
    ];
    const h = await harness(steps);
    try {
      const result = await h.engine.start({ request: 'Write release notes', effort: 'INSTANT' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const all = (i: number) => h.model.requests[i]!.messages.map((m) => m.content).join('\n');
      // The marker was in the run: the manager's next prompt carries it.
      assert.match(all(1), /DECISION-LOG-MARKER/);
      const verdicts = h.model.requests.map((r, i) => ({ r, i })).filter(({ r }) => r.responseFormat?.name === 'verdict');
      assert.equal(verdicts.length, 2);
      for (const { i } of verdicts) {
        assert.doesNotMatch(all(i), /DECISION-LOG-MARKER|RATIONALE-MARKER|criteria version \d+:/);
      }
      const [a, b] = verdicts.map(({ i }) => all(i));
      assert.match(a!, /CANDIDATE-A-MARKER/);
      assert.doesNotMatch(a!, /CANDIDATE-B-MARKER|EVIDENCE-B/);
      assert.match(b!, /CANDIDATE-B-MARKER/);
      assert.doesNotMatch(b!, /CANDIDATE-A-MARKER|EVIDENCE-A/);
      // What the judge spent is in the run's events, as the verifier's.
      assert.equal(h.events.filter((e) => e.kind === 'model' && e.role === 'verifier' && e.phase === 'VERIFY').length, 2);
      assert.ok(h.store.decisions.where('run_id = ?', [result.run.id]).some((d) => d.decision.includes('DECISION-LOG-MARKER')), 'the decision is in the log');
    } finally {
      h.close();
    }
  });

  it('renders the verifier prompt from exactly the view fields', () => {
    const messages = verifierMessages(shippedRoles().verifier, { criterion: aCriterion({ id: 'ISC-1', text: 'Toggle persists across reloads of the page' }), criteriaVersion: 3, earlierResults: [] });
    assert.equal(messages.length, 2);
    assert.deepEqual(Object.keys(JSON.parse(messages[1]!.content.split('\n\n')[1]!)), ['criterion', 'candidate', 'earlierResults']);
  });

  it('loads role, graph and capability overrides from the workspace, with located problems for bad ones', () => {
    const widened = loadRoles([{ file: '.ideal-state/roles/verifier.yaml', text: 'id: verifier\nversion: 1.0.0\nview: manager\noutputs: {}\npolicy: {}\nsystem: read everything\n' }]);
    assert.match(widened.problems[0]!.message, /reads the auditor view; it cannot be changed/);
    assert.equal(widened.roles.verifier.view, 'auditor');
    const custom = loadRoles([{ file: '.ideal-state/roles/manager.yaml', text: 'id: manager\nversion: 2.0.0\nview: manager\noutputs: { OBSERVE: criteria-draft }\npolicy: { maxOutputTokens: 100 }\nsystem: Be terse.\n' }]);
    assert.equal(custom.problems.length, 0);
    assert.equal(custom.roles.manager.system, 'Be terse.');
    const bad = loadPhaseGraph({ file: '.ideal-state/phase-graph.yaml', text: 'version: 1\nentry: OBSERVE\nnodes:\n  OBSERVE:\n    role: manager\n    gate: min-criteria\n    next: NOWHERE\n    budget: 0.5\n' });
    assert.ok(bad.problems.length > 0);
    assert.equal(bad.problems[0]!.file, '.ideal-state/phase-graph.yaml');
    assert.ok(bad.problems[0]!.line >= 7, JSON.stringify(bad.problems[0]));
    assert.equal(bad.graph.entry, 'OBSERVE', 'the shipped graph stays in force');
    const caps = loadCapabilities({ file: '.ideal-state/capabilities.yaml', text: 'version: 1\nlevels:\n  FAST:\n    agentSteps: 3\n' });
    assert.equal(caps.capabilities.levels.FAST.agentSteps, 3);
    assert.deepEqual(caps.capabilities.levels.FAST.tools, ['read_file', 'list_files', 'search', 'edit_file', 'create_file']);
  });
});

describe('algorithm: escalation in the run events', () => {
  it('records a local-to-frontier escalation of the manager as a model event of the phase', async function () {
    this.timeout(30_000);
    const local = new ScriptedModel('local.yaml', Script.parse({ name: 'local', steps: [{ text: 'not json' }, { text: 'still not json' }, ...specialistSteps('out.txt', markerFile(1))] }), { id: 'local', modelClass: 'local' });
    const big = new ScriptedModel('big.yaml', Script.parse({ name: 'big', steps: managerSteps(markerCriteria(1)) }), { id: 'big', modelClass: 'frontier' });
    const config = LlmConfig.parse({
      version: 1,
      providers: [{ id: 'scripted', kind: 'scripted', script: 'x.yaml' }],
      models: [
        { id: 'local', provider: 'scripted', model: 'local', class: 'local' },
        { id: 'big', provider: 'scripted', model: 'big', class: 'frontier' },
      ],
      routing: { default: 'local' },
    });
    const router = new ModelRouter({ config, slots: new Map([['local', { ok: true, model: local }], ['big', { ok: true, model: big }]]), source: 'config' });
    const store = await Store.open({ file: path.join(tempDir('esc'), 'db.sqlite') });
    const workspace = tempDir('ws');
    try {
      const { engine } = await nodeAlgorithm({ workspace, store, models: router, effort: shippedEffortTable(), approver: denyAll, autoApproveEdits: true });
      const result = await engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      assert.equal(result.state, 'COMPLETE', result.reason);
      const events = store.events.where('run_id = ?', [result.run.id], 'seq');
      const escalation = events.find((e) => /escalated manager at INSTANT from local model "local" to frontier model "big" after 2 invalid outputs/.test(e.message));
      assert.ok(escalation, events.map((e) => e.message).join('\n'));
      assert.equal(escalation.phase, 'OBSERVE');
      assert.equal(big.stepsLeft, 0, 'the rest of the manager calls stayed on the frontier model');
      assert.equal(local.stepsLeft, 0, 'the specialist stayed local');
    } finally {
      store.close();
    }
  });
});
