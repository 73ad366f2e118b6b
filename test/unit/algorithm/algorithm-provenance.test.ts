import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Approver } from '../../../src/agent/approvals';
import { verifyCommand } from '../../../src/cli/commands/verify';
import { criteriaFromPrd } from '../../../src/algorithm/prd-sync';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { parsePrd, toCoreCriterion } from '../../../src/prd';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, tempDir, type Step } from '../support/algorithm-helpers';
import { REPO_ROOT } from '../support/repo-root';

const CLI = path.resolve(REPO_ROOT, 'dist/cli.js');

/** Approves the agent's edits; commands as told. */
const commands = (answer: 'approve' | 'deny', asked: string[] = []): Approver => ({
  ask: async (r) => {
    if (r.kind !== 'command') return 'approve';
    asked.push(r.command ?? r.detail);
    return answer;
  },
});

/** `ideal-state verify` in-process, without a terminal (as in CI). */
async function verifyInCi(file: string, workspace: string, extra: string[] = []): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verifyCommand([file, '--workspace', workspace, '--no-store', '--json', ...extra], { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const criterionLines = (text: string) => text.split('\n').filter((l) => /^- \[[ xX]\] ISC-/.test(l));

describe('algorithm: provenance of what a run writes into a PRD (issue 15)', () => {
  // A command a model proposes at BUILD: it would leave `ran.txt` behind if it ever ran.
  const PROPOSED = 'node -e "require(\'fs\').writeFileSync(\'ran.txt\', \'x\')"';
  const crit = [{ text: 'Output file out.txt exists in the workspace', verify: { type: 'CLI', command: PROPOSED } }];

  it('a BUILD command the user denied stays as the method, marked Not approved, verifies UNKNOWN, and `verify` in CI runs nothing (issue 28 §3)', async function () {
    this.timeout(60_000);
    const asked: string[] = [];
    const saved = process.env.IDEAL_STATE_STATE_DIR;
    process.env.IDEAL_STATE_STATE_DIR = tempDir('prov-state');
    const h = await harness([...managerSteps(crit), ...specialistSteps('out.txt', 'x\n')], { approver: commands('deny', asked) });
    try {
      const r = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      assert.deepEqual(asked, [PROPOSED], 'VERIFY asked for exactly that command');
      assert.equal(r.criteria[0]!.outcome, 'UNKNOWN');
      assert.equal(fs.existsSync(path.join(h.workspace, 'ran.txt')), false);
      const prdFile = path.join(h.workspace, r.run.prdPath!);
      const prd = fs.readFileSync(prdFile, 'utf8');
      assert.deepEqual(criterionLines(prd), [`- [ ] ISC-1: Output file out.txt exists in the workspace | Verify: CLI: ${PROPOSED}`], 'a denial changes what runs, never what the PRD says');
      assert.match(prd, /\n {2}- Not approved \(sha256:[0-9a-f]{12}\): this command was not approved on \d{4}-\d\d-\d\d; the criterion is UNKNOWN until a person approves it\n/);
      assert.deepEqual(h.storage.load(r.run.id)!.memo.approvedCommands, []);

      for (const flags of [[], ['--yes']]) {
        const v = await verifyInCi(prdFile, h.workspace, flags);
        assert.equal(v.code, 1, v.err);
        const result = JSON.parse(v.out).results[0];
        assert.equal(result.outcome, 'UNKNOWN');
        assert.match(result.evidence, /not approved/);
        assert.equal(fs.existsSync(path.join(h.workspace, 'ran.txt')), false, `nothing ran (${flags.join(' ') || 'no flag'})`);
      }
    } finally {
      h.close();
      if (saved === undefined) delete process.env.IDEAL_STATE_STATE_DIR;
      else process.env.IDEAL_STATE_STATE_DIR = saved;
    }
  });

  it('a denial at VERIFY ends the run BLOCKED, waiting for the person, with the command named; a second iteration does not ask again', async function () {
    this.timeout(60_000);
    const asked: string[] = [];
    const saved = process.env.IDEAL_STATE_STATE_DIR;
    process.env.IDEAL_STATE_STATE_DIR = tempDir('deny-state');
    // STANDARD allows two iterations: a denial used to send the run round again, ask again, and end it as "out of budget".
    // STANDARD asks for at least four criteria: three markers the edit makes pass, and the command.
    const four = [...markerCriteria(3), ...crit];
    const h = await harness([...managerSteps(four), ...specialistSteps('out.txt', markerFile(3))], { approver: commands('deny', asked) });
    try {
      const r = await h.engine.start({ request: 'Write out.txt', effort: 'STANDARD' });
      assert.equal(r.state, 'BLOCKED', r.reason);
      assert.equal(r.reason, `needs your approval: \`${PROPOSED}\` was not approved, so ISC-4 cannot be proven. Run again and approve it when asked, or allow it (the setting idealState.verify.allowedCommands; on the command line, --approve commands)`);
      assert.deepEqual(asked, [PROPOSED], 'asked once');
      assert.equal(r.run.iteration, 1);
    } finally {
      h.close();
      if (saved === undefined) delete process.env.IDEAL_STATE_STATE_DIR;
      else process.env.IDEAL_STATE_STATE_DIR = saved;
    }
  });

  it('writes the exact command into the PRD once the user approved it at VERIFY', async function () {
    this.timeout(60_000);
    const h = await harness([...managerSteps(crit), ...specialistSteps('out.txt', 'x\n')], { approver: commands('approve') });
    try {
      const r = await h.engine.start({ request: 'Write out.txt', effort: 'INSTANT' });
      assert.equal(r.state, 'COMPLETE', r.reason);
      const prd = fs.readFileSync(path.join(h.workspace, r.run.prdPath!), 'utf8');
      assert.deepEqual(criterionLines(prd), [`- [x] ISC-1: Output file out.txt exists in the workspace | Verify: CLI: ${PROPOSED}`]);
      assert.deepEqual(parsePrd(prd).criteria[0]!.verify, { type: 'CLI', command: PROPOSED });
      assert.deepEqual(h.storage.load(r.run.id)!.memo.approvedCommands, [PROPOSED]);
    } finally {
      h.close();
    }
  });

  describe('a garbage model whose criteria fail the gates', () => {
    const garbage = { object: { criteria: [{ text: 'maybe stuff?', source: 'EXPLICIT' }, { text: 'good things etc', source: 'EXPLICIT' }], decisions: [] } };

    it('creates no PRD when the review gate refused every draft', async function () {
      this.timeout(60_000);
      const h = await harness([garbage, garbage, garbage]);
      try {
        const r = await h.engine.start({ request: 'Do a thing', effort: 'INSTANT' });
        assert.equal(r.state, 'FAILED');
        assert.match(r.reason ?? '', /THINK gate refused/);
        assert.equal(r.run.prdPath, undefined);
        assert.equal(fs.existsSync(path.join(h.workspace, '.ideal-state')), false, 'no file written');
      } finally {
        h.close();
      }
    });

    it('adds none of its criteria to the user\'s PRD', async function () {
      this.timeout(60_000);
      const ws = tempDir('prov-ws');
      const rel = '.ideal-state/prds/PRD-20261201-user.md';
      const text = ['---', 'prd: true', 'id: PRD-20261201-user', 'status: DRAFT', 'effort_level: INSTANT', '---', '', '# Greeting', '', '## Ideal State Criteria', '- [ ] ISC-1: The greeting says Hello to the name | Verify: Grep: Hello', '', '## LOG', ''].join('\n');
      fs.mkdirSync(path.join(ws, '.ideal-state/prds'), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), text);
      const read = criteriaFromPrd(text, new Date().toISOString(), toCoreCriterion);
      const h = await harness([garbage, garbage, garbage], { workspace: ws });
      try {
        const r = await h.engine.start({ request: 'Greeting', effort: 'INSTANT', prd: { path: rel, criteria: read.criteria } });
        assert.equal(r.state, 'FAILED');
        const after = fs.readFileSync(path.join(ws, rel), 'utf8');
        assert.deepEqual(criterionLines(after), ['- [ ] ISC-1: The greeting says Hello to the name | Verify: Grep: Hello']);
        assert.ok(!/maybe stuff|good things/.test(after));
      } finally {
        h.close();
      }
    });
  });
});

describe('algorithm: a PRD\'s max_iterations (issue 15)', () => {
  const CRITERIA = ['one', 'two', 'three', 'four'].map((n, i) => ({ id: `ISC-${i + 1}`, text: `Output file holds the marker line ${n}`, pattern: `^marker-${i + 1}$` }));
  const prdText = (max: number | undefined) =>
    ['---', 'prd: true', 'id: PRD-20261201-markers', 'status: DRAFT', 'effort_level: STANDARD', ...(max === undefined ? [] : [`max_iterations: ${max}`]), '---', '', '# Write the markers', '', '## Ideal State Criteria', ...CRITERIA.map((c) => `- [ ] ${c.id}: ${c.text} | Verify: Grep: ${c.pattern}`), '', '## LOG', ''].join('\n');
  const drafts = CRITERIA.map((c) => ({ id: c.id, text: c.text, source: 'EXPLICIT' }));
  /** Two iterations' worth of answers (STANDARD allows 2); the specialist never writes marker 4, so nothing completes. */
  const iteration = (first: boolean): Step[] => [
    ...(first ? [{ object: { criteria: drafts } }] : []),
    { object: { criteria: drafts } },
    { object: { packets: [{ title: 'Write the markers', criterionIds: CRITERIA.map((c) => c.id) }] } },
    { object: { methods: [] } },
    ...specialistSteps('out.txt', 'marker-1\nmarker-2\nmarker-3\n'),
  ];
  const steps = [...iteration(true), ...iteration(false)];

  it('stops after the PRD\'s max_iterations instead of the level\'s, and says whose limit it was', async function () {
    this.timeout(60_000);
    for (const max of [1, undefined]) {
      const ws = tempDir('max-ws');
      const rel = '.ideal-state/prds/PRD-20261201-markers.md';
      fs.mkdirSync(path.join(ws, '.ideal-state/prds'), { recursive: true });
      fs.writeFileSync(path.join(ws, rel), prdText(max));
      const read = criteriaFromPrd(prdText(max), new Date().toISOString(), toCoreCriterion);
      assert.equal(read.maxIterations, max);
      const h = await harness(steps, { workspace: ws });
      try {
        const r = await h.engine.start({ request: 'Write the markers', effort: 'STANDARD', prd: { path: rel, criteria: read.criteria, ...(read.maxIterations ? { maxIterations: read.maxIterations } : {}) } });
        assert.equal(r.state, 'BUDGET_EXHAUSTED', r.reason);
        if (max === 1) {
          assert.equal(r.run.iteration, 1);
          assert.equal(r.reason, "reached the PRD's max_iterations (1 iteration) with criteria unmet");
        } else {
          assert.equal(r.run.iteration, shippedEffortTable().levels.STANDARD.maxIterations, 'without it, the level\'s');
          assert.equal(r.reason, "reached the level's 2 iterations with criteria unmet");
        }
      } finally {
        h.close();
      }
    }
  });

  it('refuses max_iterations: 0 with its line, rather than ignoring it', () => {
    const read = criteriaFromPrd(prdText(0), new Date().toISOString(), toCoreCriterion);
    assert.deepEqual(read.problems, ["line 6: max_iterations: 0 cannot be honoured, a run verifies at least once; write 1, or leave it out for the effort level's"]);
  });

  it('`ideal-state run --prd` honours it (built command line, scripted provider)', async function () {
    this.timeout(60_000);
    const ws = tempDir('max-cli');
    const rel = '.ideal-state/prds/PRD-20261201-markers.md';
    fs.mkdirSync(path.join(ws, '.ideal-state/prds'), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), prdText(1));
    const script = path.join(ws, '..', `${path.basename(ws)}-script.json`);
    fs.writeFileSync(script, JSON.stringify({ name: 'markers', steps }));
    const store = path.join(ws, '..', `${path.basename(ws)}.sqlite`);
    const r = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const proc = spawn(process.execPath, [CLI, 'run', '--prd', rel, '--effort', 'STANDARD', '--provider', 'scripted', '--script', script, '--workspace', ws, '--store', store, '--json', '--approve', 'edits'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
      proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
      proc.on('close', (code) => resolve({ code, out, err }));
    });
    assert.equal(r.code, 3, r.err);
    const json = JSON.parse(r.out);
    assert.deepEqual([json.state, json.iterations, json.reason], ['BUDGET_EXHAUSTED', 1, "reached the PRD's max_iterations (1 iteration) with criteria unmet"]);
  });
});
