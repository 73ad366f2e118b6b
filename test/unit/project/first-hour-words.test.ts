import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatTable } from '../../../src/cli/reports/verify-output';
import { LOOP_STATES, RunState } from '../../../src/model';
import { IscRegistry } from '../../../src/model/isc-registry';
import { stateWords } from '../../../src/model/run-states';
import { parsePrd } from '../../../src/prd/parse';
import { newPrdText } from '../../../src/prd/new-prd';
import { runCommand } from '../../../src/verify/run-command';
import { summarize } from '../../../src/verify/verify-criteria';
import { loopEndMessage, runEndMessage } from '../../../src/vscode/run/progress-text';
import { harness, managerSteps, markerCriteria, markerFile, specialistSteps, tempDir } from '../support/algorithm-helpers';
import { REPO_ROOT } from '../support/repo-root';

/**
 * Issue 28 §10, the words a newcomer read in the first hour: raw codes in messages, counts
 * without singular, "Work: no candidate" after an approved edit, a new PRD's Problem Space
 * that was the template's text, Node's MODULE_TYPELESS_PACKAGE_JSON warning inside evidence,
 * and "PASSED: 0 of 0" for a set with no criteria.
 */
describe('the first hour, in words', () => {
  it('every run and loop state has words, and no end message carries a raw code', () => {
    for (const state of [...RunState.options, ...LOOP_STATES]) {
      const words = stateWords(state);
      assert.doesNotMatch(words, /[A-Z_]{3,}/, `${state} → ${words}`);
    }
    const run = runEndMessage({ state: 'BUDGET_EXHAUSTED', criteria: [], reason: 'the wall-time budget ran out before any criteria were written' });
    assert.match(run.text, /^Ideal State: run out of budget — 0 of 0 criteria pass: the wall-time budget ran out/);
    assert.doesNotMatch(run.text, /BUDGET_EXHAUSTED/);
    const loop = loopEndMessage({ state: 'BUDGET_EXHAUSTED', passing: 9, total: 12 });
    assert.equal(loop, 'Ideal State: loop out of budget — 9 of 12 artifacts pass.');
  });

  it('counts agree with their nouns: 1 artifact passes, 2 artifacts pass, 1 criterion passes', () => {
    assert.equal(loopEndMessage({ state: 'COMPLETE', passing: 1, total: 1 }), 'Ideal State: loop complete — 1 of 1 artifact passes.');
    assert.equal(loopEndMessage({ state: 'FAILED', passing: 0, total: 2 }), 'Ideal State: loop failed — 0 of 2 artifacts pass.');
    const one = runEndMessage({ state: 'COMPLETE', criteria: [{ id: 'ISC-1', priority: 'CRITICAL' } as never], report: { results: [{ criterionId: 'ISC-1', outcome: 'PASS' }] } as never });
    assert.match(one.text, /— 1 of 1 criterion passes\.$/);
  });

  it("a new PRD's Problem Space is the request, not the template's text", () => {
    const now = new Date('2026-11-26T10:00:00Z');
    const request = 'Add a farewell(name) to src/greet.js that says Goodbye\n# and refuses an empty name';
    const text = newPrdText({ title: 'Add a farewell(name) to src/greet.js', request, effort: 'STANDARD', maxIterations: 2, now });
    const doc = parsePrd(text);
    const problem = text.split('## Problem Space\n')[1]!.split('\n## ')[0]!.trim();
    assert.equal(problem, 'Add a farewell(name) to src/greet.js that says Goodbye # and refuses an empty name');
    assert.doesNotMatch(text, /What is wrong or missing today/);
    assert.deepEqual(doc.diagnostics.filter((d) => d.severity === 'error'), []);

    const shipped = path.resolve(REPO_ROOT, 'isc-definitions');
    const sources = fs.readdirSync(shipped).filter((n) => n.endsWith('.yaml')).map((n) => ({ file: path.join(shipped, n), text: fs.readFileSync(path.join(shipped, n), 'utf8'), origin: 'shipped' as const }));
    const feature = IscRegistry.load(sources).get('code.feature')!.definition;
    const templated = newPrdText({ title: 'Webview editing', effort: 'FAST', maxIterations: 1, now, template: feature });
    const section = templated.split('## Problem Space\n')[1]!.split('\n## ')[0]!.trim();
    assert.ok(section.startsWith('Webview editing\n'), section);
    assert.ok(section.includes(`ISC template code.feature: ${feature.description}`), section);
  });

  it('an empty criteria set does not pass: "no criteria to verify", and the command line says NOT PASSED', () => {
    const set = summarize([], []);
    assert.equal(set.passed, false);
    assert.equal(set.summary, 'no criteria to verify');
    const table = formatTable(set, { effort: 'STANDARD', parallelism: 2, written: false });
    assert.match(table, /^NOT PASSED: no criteria to verify /m);
    assert.doesNotMatch(table, /PASSED: 0 of 0/);
  });

  it("Node's MODULE_TYPELESS_PACKAGE_JSON warning stays out of a command's output; other stderr stays in", async function () {
    this.timeout(20_000);
    const dir = tempDir('typeless');
    fs.writeFileSync(path.join(dir, 'package.json'), '{}\n');
    fs.writeFileSync(path.join(dir, 'greet.js'), 'export const greet = (n) => `Hello, ${n}!`;\n');
    const script = "import('./greet.js').then((m) => { console.log(m.greet('Ada')); console.error('a real complaint'); })";
    const result = await runCommand({ command: process.execPath, args: ['-e', script], cwd: dir, timeoutMs: 15_000 });
    assert.equal(result.kind, 'exited');
    assert.match(result.output, /Hello, Ada!/);
    assert.match(result.output, /a real complaint/);
    assert.doesNotMatch(result.output, /MODULE_TYPELESS_PACKAGE_JSON|Reparsing as ES module|To eliminate this warning|--trace-warnings/, result.output);
  });

  it('the LOG of an iteration that goes round again says what its approved edit did, never "no candidate"', async function () {
    this.timeout(60_000);
    const criteria = markerCriteria(4);
    const h = await harness([...managerSteps(criteria), ...specialistSteps('out.txt', 'marker-1\n', 'Wrote a first draft of out.txt.'), ...specialistSteps('out2.txt', 'x\n', 'Wrote out2.txt.')], {
      autoApproveEdits: true,
    });
    try {
      const result = await h.engine.start({ request: 'Write out.txt with 4 marker lines', effort: 'STANDARD' });
      const run = h.store.runs.get(result.run.id)!;
      const prd = fs.readFileSync(path.join(h.workspace, run.prdPath!), 'utf8');
      const first = prd.split(/^### /m).find((e) => /Iteration 1\b/.test(e));
      assert.ok(first, prd);
      assert.match(first, /Work: Wrote a first draft of out\.txt\./, first);
      assert.doesNotMatch(prd, /no candidate/, prd);
      assert.equal(fs.readFileSync(path.join(h.workspace, 'out.txt'), 'utf8'), 'marker-1\n');
      assert.notEqual(markerFile(4), 'marker-1\n');
    } finally {
      h.close();
    }
  });
});
