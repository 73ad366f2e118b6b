import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AnyCriterion } from '../../../src/model';
import { doneWords, probedIds, probeFlags, probePrd, PROBE_WORDS } from '../../../src/app/probe';
import { checkHeld, gateVerdict } from '../../../src/app/gate';
import { verifyPrdFile } from '../../../src/app/verify-prd-file';
import { notesOf } from '../../../src/prd/notes';
import { parsePrd } from '../../../src/prd/parse';
import { tempDir } from '../support/algorithm-helpers';

/** Probe the probes (issue 28 §5): a check that passes before any work is flagged; an anti-criterion never is. */
describe('probing the checks when criteria are accepted', () => {
  it('flags a criterion whose runnable check already passes; never an anti-criterion, a judge\'s criterion, or a failing one', () => {
    const criteria: Pick<AnyCriterion, 'id' | 'kind' | 'verify'>[] = [
      { id: 'ISC-1', kind: 'criterion', verify: { type: 'GREP', pattern: 'x', expect: 'present' } },
      { id: 'ISC-2', kind: 'criterion', verify: { type: 'GREP', pattern: 'y', expect: 'present' } },
      { id: 'ISC-3', kind: 'criterion', verify: { type: 'CUSTOM', description: 'reads well' } },
      { id: 'ISC-A-1', kind: 'anti-criterion', verify: { type: 'GREP', pattern: 'TODO', expect: 'absent' } },
    ];
    const results = [
      { criterionId: 'ISC-1', outcome: 'PASS' as const, evidence: '1 match' },
      { criterionId: 'ISC-2', outcome: 'FAIL' as const, evidence: 'no match' },
      { criterionId: 'ISC-3', outcome: 'PASS' as const, evidence: 'the judge says so' },
      { criterionId: 'ISC-A-1', outcome: 'PASS' as const, evidence: 'no match' },
    ];
    assert.deepEqual(probeFlags(criteria, results), [{ id: 'ISC-1', evidence: '1 match' }]);
  });

  it('runs each check once on the workspace as it is and notes the one that cannot fail in the PRD, round-trip safe', async function () {
    this.timeout(60_000);
    const ws = tempDir('probe');
    fs.writeFileSync(path.join(ws, 'greet.js'), 'exports.greet = (n) => `Hello, ${n}`;\n');
    const rel = '.ideal-state/prds/PRD-20261127-farewell.md';
    // ISC-2's command takes any error for the expected one: it passes while farewell does not exist.
    const weak = `node -e "try { require('./greet.js').farewell(''); process.exit(1) } catch { process.exit(0) }"`;
    const text = ['---', 'prd: true', 'id: PRD-20261127-farewell', 'status: DRAFT', 'effort_level: FAST', '---', '', '# Farewell', '', '## Problem Space', 'x', '', '## Ideal State Criteria',
      '- [ ] ISC-1: greet.js exports a farewell function | Verify: Grep: exports\\.farewell',
      `- [ ] ISC-2: farewell throws an error when the name is empty | Verify: CLI: ${weak}`,
      '', '## Anti-Criteria', '- [ ] ISC-A-1: No TODO remains in greet.js | Verify: Grep: TODO (expect: absent)', '', '## LOG', ''].join('\n');
    fs.mkdirSync(path.join(ws, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
    const asked: string[] = [];
    const probed = await probePrd(path.join(ws, rel), ws, { ask: async (q) => (asked.push(q), 'y'), warn: () => undefined, now: new Date('2026-11-27T00:00:00Z') });
    assert.equal(probed.kind, 'probed', JSON.stringify(probed));
    assert.deepEqual(probed.kind === 'probed' ? probed.flags.map((f) => f.id) : [], ['ISC-2']);
    assert.equal(asked.length, 1, 'its command was asked about on the terminal, as verify asks');
    const after = fs.readFileSync(path.join(ws, rel), 'utf8');
    const doc = parsePrd(after);
    assert.deepEqual(notesOf(doc, 'ISC-2').map((n) => [n.kind, n.text]), [['probe', `${PROBE_WORDS} (2026-11-27)`]]);
    assert.deepEqual(notesOf(doc, 'ISC-1'), []);
    assert.deepEqual(doc.criteria.map((c) => [c.id, c.text, c.verify]), parsePrd(text).criteria.map((c) => [c.id, c.text, c.verify]), 'the criteria read as before');
    const again = await probePrd(path.join(ws, rel), ws, { ask: async () => 'y', warn: () => undefined, now: new Date('2026-11-28T00:00:00Z') });
    assert.deepEqual(again.kind === 'probed' ? again.written : undefined, false, 'probing again writes nothing new');
    // Once the check is fixed to fail without the feature, the note goes.
    const strong = `node -e "const m = require('./greet.js'); if (typeof m.farewell !== 'function') process.exit(1); try { m.farewell('') } catch { process.exit(0) } process.exit(1)"`;
    fs.writeFileSync(path.join(ws, rel), after.replace(weak, strong));
    const fixed = await probePrd(path.join(ws, rel), ws, { ask: async () => 'y', warn: () => undefined, now: new Date('2026-11-28T00:00:00Z') });
    assert.deepEqual(fixed.kind === 'probed' ? fixed.flags : undefined, []);
    assert.equal(fs.readFileSync(path.join(ws, rel), 'utf8'), text.replace(weak, strong));
  });

  it('locked after the work was done: a ticked criterion that passes is "done", not "passes before any work" — no note, and an old one goes', async function () {
    this.timeout(60_000);
    const ws = tempDir('probe-done');
    fs.writeFileSync(path.join(ws, 'greet.js'), 'exports.greet = (n) => `Hello, ${n}`;\nexports.farewell = (n) => `Goodbye, ${n}`;\n');
    const rel = '.ideal-state/prds/PRD-20261128-done.md';
    const text = ['---', 'prd: true', 'id: PRD-20261128-done', 'status: COMPLETE', 'effort_level: FAST', '---', '', '# Done', '', '## Problem Space', 'x', '', '## Ideal State Criteria',
      // The run ticked ISC-1 when its check passed after the work; ISC-2 was never ticked, yet passes.
      '- [x] ISC-1: greet.js exports a farewell function | Verify: Grep: exports\\.farewell',
      `  - Probe: ${PROBE_WORDS} (2026-11-27)`,
      '- [ ] ISC-2: greet.js exports a greet function | Verify: Grep: exports\\.greet',
      '', '## LOG', ''].join('\n');
    fs.mkdirSync(path.join(ws, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
    const probed = await probePrd(path.join(ws, rel), ws, { warn: () => undefined, now: new Date('2026-11-28T00:00:00Z') });
    assert.equal(probed.kind, 'probed', JSON.stringify(probed));
    assert.deepEqual(probed.kind === 'probed' ? [probed.flags.map((f) => f.id), probed.done] : undefined, [['ISC-2'], ['ISC-1']]);
    const doc = parsePrd(fs.readFileSync(path.join(ws, rel), 'utf8'));
    assert.deepEqual(notesOf(doc, 'ISC-1'), [], 'no "before any work" note on work that was done');
    assert.deepEqual(notesOf(doc, 'ISC-2').map((n) => n.kind), ['probe']);
    assert.equal(doneWords(['ISC-1']), 'ISC-1 already passes and is ticked in the PRD: the work was done before the lock, so this probe cannot tell whether that check can fail (no Probe note)');
  });

  it("the done gate's answer asks whether a probed check can fail: beside the block reason, and in the note when it lets go", async function () {
    this.timeout(60_000);
    const ws = tempDir('probe-gate');
    fs.writeFileSync(path.join(ws, 'greet.js'), 'exports.greet = (n) => `Hello, ${n}`;\n');
    const rel = '.ideal-state/prds/PRD-20261127-probed.md';
    const text = ['---', 'prd: true', 'id: PRD-20261127-probed', 'status: DRAFT', 'effort_level: FAST', '---', '', '# Probed', '', '## Problem Space', 'x', '', '## Ideal State Criteria',
      '- [ ] ISC-1: greet.js exports a greet function | Verify: Grep: exports\\.greet',
      `  - Probe: ${PROBE_WORDS} (2026-11-27)`,
      '- [ ] ISC-2: greet.js exports a farewell function | Verify: Grep: exports\\.farewell',
      '', '## Anti-Criteria', '- [ ] ISC-A-1: No TODO remains in greet.js | Verify: Grep: TODO (expect: absent)', '', '## LOG', ''].join('\n');
    fs.mkdirSync(path.join(ws, path.dirname(rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), text);
    assert.deepEqual(probedIds(text), ['ISC-1']);
    const verify = (file: string) => verifyPrdFile({ file, workspace: ws, checks: { timeoutSeconds: 30 }, commands: { yes: true, off: false }, report: { store: false }, warn: () => undefined });
    const decide = async () => {
      const held = await checkHeld(ws, { kind: 'newest', file: path.join(ws, rel), why: 'the newest unfinished PRD with criteria' }, { verify: (file) => verify(file), now: new Date() });
      assert.equal(held.kind, 'checks');
      return gateVerdict(held.kind === 'checks' ? held.checks : [], { before: 0, maxBlocks: 3, heldBy: 'none' });
    };
    const blocked = await decide();
    assert.equal(blocked.kind, 'block');
    assert.match(blocked.kind === 'block' ? blocked.reason : '', /ISC-2 FAIL/);
    assert.match(blocked.kind === 'block' ? blocked.reason : '', /ISC-1 passed before any work was done — can this check fail\?/);
    fs.appendFileSync(path.join(ws, 'greet.js'), 'exports.farewell = (n) => `Bye, ${n}`;\n');
    const let_go = await decide();
    assert.equal(let_go.kind, 'allow');
    assert.match(let_go.kind === 'allow' ? (let_go.note ?? '') : '', /ISC-1 passed before any work was done — can this check fail\?/);
  });
});
