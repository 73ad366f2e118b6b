import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parse } from 'yaml';
import type { VerificationMethod } from '../../../src/model';
import { probeFlags } from '../../../src/algorithm/probe';
import { verifyCriteria } from '../../../src/verify/verify-criteria';
import { criterion } from '../support/verify-helpers';
import { REPO_ROOT } from '../support/repo-root';

const SAMPLE = path.resolve(REPO_ROOT, 'test/fixtures/sample-workspace');
const SCRIPT = path.join(SAMPLE, '.ideal-state/demo/demo-run.yaml');

/**
 * Probe the probes (issue 28 §5): each of the demo's criteria fails on the sample as it is
 * (before the run) and passes after the script's edit, so the run's probe flags none of them.
 * The farewell check used to pass without the feature ("m.farewell is not a function" was the
 * error it expected), and ISC-4 used to be a guard that held before any work ("greet still says
 * Hello"): it is now about the new behaviour (farewell refuses an empty name as greet does). The
 * anti-criterion — no debugger — holds before and after, as anti-criteria do.
 */
describe("the demo's checks can fail", () => {
  type Step = { object?: { methods?: { criterionId: string; verify: VerificationMethod }[] }; toolCalls?: { name: string; arguments: { path: string; find: string; replace: string } }[] };
  const steps = (parse(fs.readFileSync(SCRIPT, 'utf8')) as { steps?: Step[] } | Step[]);
  const list: Step[] = Array.isArray(steps) ? steps : (steps.steps ?? []);
  const methods = list.find((s) => s.object?.methods)!.object!.methods!;
  const edit = list.flatMap((s) => s.toolCalls ?? []).find((c) => c.name === 'edit_file')!.arguments;

  async function outcomes(after: boolean): Promise<Record<string, string>> {
    return (await probe(after)).outcomes;
  }

  /** The sample verified as it is (before) or after the script's edit, and what the run's probe flags on it. */
  async function probe(after: boolean): Promise<{ outcomes: Record<string, string>; flagged: string[] }> {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-probes-'));
    try {
      fs.cpSync(SAMPLE, root, { recursive: true });
      if (after) {
        const file = path.join(root, edit.path);
        const text = fs.readFileSync(file, 'utf8');
        assert.ok(text.includes(edit.find));
        fs.writeFileSync(file, text.replace(edit.find, edit.replace));
      }
      const criteria = methods.map((m) => criterion(m.verify, { id: m.criterionId, ...(m.criterionId.startsWith('ISC-A-') ? { kind: 'anti-criterion' as const } : {}) }));
      const set = await verifyCriteria(criteria, { workspaceRoot: root }, { parallelism: 2, timeoutMs: 20_000 });
      return { outcomes: Object.fromEntries(set.results.map((r) => [r.criterionId, r.outcome])), flagged: probeFlags(criteria, set.results).map((f) => f.id) };
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  }

  it('every criterion fails before the run and passes after; the probe flags none; the anti-criterion holds both times', async function () {
    this.timeout(60_000);
    const before = await probe(false);
    assert.deepEqual(before.outcomes, { 'ISC-1': 'FAIL', 'ISC-2': 'FAIL', 'ISC-3': 'FAIL', 'ISC-4': 'FAIL', 'ISC-A-1': 'PASS' });
    assert.deepEqual(before.flagged, [], 'a demo check passes before any work');
    assert.deepEqual(await outcomes(true), { 'ISC-1': 'PASS', 'ISC-2': 'PASS', 'ISC-3': 'PASS', 'ISC-4': 'PASS', 'ISC-A-1': 'PASS' });
  });
});
