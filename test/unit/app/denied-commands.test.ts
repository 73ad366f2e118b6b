import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nodeAlgorithm } from '../../../src/app/node-run';
import type { ApprovalRequest } from '../../../src/agent/approvals';
import { deniedCommands } from '../../../src/app/denied-commands';
import { verifyCommand } from '../../../src/cli/commands/verify';
import { methodCommand } from '../../../src/model';
import { shippedEffortTable } from '../../../src/model/effort-table';
import { parseLlmConfig } from '../../../src/llm/config';
import { resolveModels } from '../../../src/llm/resolve';
import { ModelRouter } from '../../../src/llm/router';
import { notesOf } from '../../../src/prd/notes';
import { parsePrd } from '../../../src/prd/parse';
import { Store } from '../../../src/store/store';
import { commandDigest } from '../../../src/verify/command-digest';
import { REPO_ROOT } from '../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const MODELS_FILE = '.ideal-state/demo/models.yaml';
const REQUEST = 'Add a farewell(name) to src/greet.js that says Goodbye and refuses an empty name';

/** `ideal-state verify` in-process; `ask` present: a terminal. */
async function verify(file: string, workspace: string, flags: string[], ask?: (q: string) => Promise<string>): Promise<{ code: number; results: { id: string; outcome: string; evidence: string }[]; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verifyCommand([file, '--workspace', workspace, '--no-store', '--json', ...flags], { out: (s) => out.push(s), err: (s) => err.push(s), ...(ask ? { ask } : {}) });
  return { code, results: JSON.parse(out.join('\n')).results, err: err.join('\n') };
}

/**
 * A person's denial changes what runs, never what the PRD says (issue 28 §3): the demo run with
 * its edit approved and its verification commands denied keeps every criterion's method in the
 * PRD, marks it "Not approved", and remembers the denial in the user's state folder; the
 * criteria are UNKNOWN, "not approved"; `ideal-state verify` never runs the denied commands
 * unasked — not with `--yes`, not after an agent deleted the PRD's note, not on a CI machine
 * without the state folder — and on a terminal asks again.
 */
describe('a denied verification command', () => {
  let state: string;
  let saved: string | undefined;
  beforeEach(() => {
    saved = process.env.IDEAL_STATE_STATE_DIR;
    state = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-deny-state-'));
    process.env.IDEAL_STATE_STATE_DIR = state;
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.IDEAL_STATE_STATE_DIR;
    else process.env.IDEAL_STATE_STATE_DIR = saved;
  });

  it('keeps the method (marked Not approved), is UNKNOWN, and never runs unasked; a terminal asks again', async function () {
    this.timeout(120_000);
    const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-deny-'));
    fs.cpSync(SAMPLE, workspace, { recursive: true });
    const parsed = parseLlmConfig(MODELS_FILE, fs.readFileSync(path.join(workspace, MODELS_FILE), 'utf8'));
    assert.ok(parsed.ok);
    const router = new ModelRouter(await resolveModels(parsed.value, { env: {}, baseDir: workspace }));
    const store = await Store.open({ file: path.join(workspace, '.data', 'db.sqlite'), checkpointIdleMs: 60_000 });
    const asked: ApprovalRequest[] = [];
    try {
      const { engine } = await nodeAlgorithm({ workspace, store, models: router, effort: shippedEffortTable(), approver: { ask: async (r) => (asked.push(r), r.kind === 'command' ? 'deny' : 'approve') }, verifyTimeoutMs: 30_000 });
      const result = await engine.start({ request: REQUEST, effort: 'STANDARD' });
      const prdFile = path.join(workspace, result.run.prdPath!);
      const text = fs.readFileSync(prdFile, 'utf8');
      const prd = parsePrd(text);
      const cli = prd.criteria.filter((c) => c.verify?.type === 'CLI');
      assert.deepEqual(cli.map((c) => c.id), ['ISC-2', 'ISC-3', 'ISC-4'], `the CLI criteria keep their method:\n${text}`);
      for (const c of cli) {
        const notes = notesOf(prd, c.id);
        assert.deepEqual(notes.map((n) => [n.kind, n.digest]), [['not-approved', commandDigest(methodCommand(c.verify!)!)]], `${c.id} is marked Not approved:\n${text}`);
        const r = result.report!.results.find((x) => x.criterionId === c.id)!;
        assert.equal(r.outcome, 'UNKNOWN');
        assert.match(r.evidence, /not approved/);
      }
      assert.equal(parsePrd(text).diagnostics.filter((d) => d.severity === 'error').length, 0, 'the notes read as prose');
      // The denial ends the run waiting for the person: asked once, never again in another round, never "out of budget".
      assert.equal(asked.filter((a) => a.kind === 'command').length, 1, 'asked once');
      assert.equal(result.state, 'BLOCKED');
      assert.match(result.reason ?? '', /^needs your approval: `node -e [^`]+`, `node -e [^`]+`, `node -e [^`]+` were not approved, so ISC-2, ISC-3, ISC-4 cannot be proven\./);
      assert.doesNotMatch(text, /- Failing: [^\n]*UNKNOWN/, 'the LOG lists an UNKNOWN apart, never under Failing');
      assert.match(text, /- Unknown: ISC-2 \(no verdict(: [a-z ]+)?\), ISC-3/);
      const commands = cli.map((c) => methodCommand(c.verify!)!);
      const remembered = await deniedCommands(workspace);
      assert.deepEqual([...remembered.values()].map((d) => [d.command, d.always]).sort(), commands.map((c) => [c, false]).sort(), 'remembered where the agent cannot erase it');

      const notRun = (v: Awaited<ReturnType<typeof verify>>, why: string) => {
        for (const id of ['ISC-2', 'ISC-3', 'ISC-4']) {
          const r = v.results.find((x) => x.id === id)!;
          assert.deepEqual([r.outcome, /not approved/.test(r.evidence)], ['UNKNOWN', true], `${why}: ${id} ${r.evidence}`);
        }
      };
      // CI: --yes runs every other command, never a denied one.
      notRun(await verify(prdFile, workspace, ['--yes']), '--yes without a terminal');
      notRun(await verify(prdFile, workspace, []), 'no terminal, no flag');
      // An agent deletes the notes: the remembered denial still holds.
      fs.writeFileSync(prdFile, text.split('\n').filter((l) => !/^\s+- Not approved/.test(l)).join('\n'));
      notRun(await verify(prdFile, workspace, ['--yes']), 'the notes deleted');
      fs.writeFileSync(prdFile, text);
      // A CI machine has no state folder: the PRD's note holds.
      process.env.IDEAL_STATE_STATE_DIR = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-ci-state-'));
      notRun(await verify(prdFile, workspace, ['--yes']), 'a fresh state folder');
      process.env.IDEAL_STATE_STATE_DIR = state;
      // On a terminal, --yes still asks about them; "n" keeps them UNKNOWN, "y" runs them and forgets the denial.
      const questions: string[] = [];
      notRun(await verify(prdFile, workspace, ['--yes'], async (q) => (questions.push(q), 'n')), 'answered no');
      assert.equal(questions.length, 1, 'asked once');
      const ran = await verify(prdFile, workspace, ['--yes'], async () => 'y');
      for (const id of ['ISC-2', 'ISC-3', 'ISC-4']) assert.notEqual(ran.results.find((x) => x.id === id)!.outcome, 'UNKNOWN', `${id} ran on a person's yes`);
      assert.equal((await deniedCommands(workspace)).size, 0, 'the yes forgot the denial');
    } finally {
      store.close();
      fs.rmSync(workspace, { recursive: true, force: true });
    }
  });
});
