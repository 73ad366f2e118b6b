import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseDocument } from 'yaml';
import { gateVerdict, type GateVerification } from '../../../../src/app/gate';
import { prdCheck } from '../../../../src/cli/commands/prd-check';
import { verifyPrdFile } from '../../../../src/app/verify-prd-file';
import { keyRange } from '../../../../src/prd/frontmatter';
import { applyEdits, checkIsa, isaCompletionProblems, joinLines, parseIsa, parsePrd, planProbe, recogniseFormat, writeIsaOutcomes, type IsaDocument } from '../../../../src/prd';
import { differingLines } from '../../support/isa-helpers';
import { VARIANTS } from '../prd-helpers';
import { workspace } from '../../support/verify-helpers';
import { REPO_ROOT } from '../../support/repo-root';

/**
 * ISAs as people write them today (issue 27): the patterns of LifeOS's public example ISAs
 * (ISAFormat v2.18), reproduced in fixtures of our own under test/fixtures/isa/.
 */
const DIR = path.resolve(REPO_ROOT, 'test/fixtures/isa');
const names = () => fs.readdirSync(DIR).filter((n) => n.endsWith('.md')).sort();
const read = (name: string) => fs.readFileSync(path.join(DIR, name), 'utf8');
const errors = (doc: { diagnostics: readonly { severity: string }[] }) => doc.diagnostics.filter((d) => d.severity === 'error');
const plans = (doc: IsaDocument) => Object.fromEntries(doc.probes.map((p) => [p.isc, planProbe(p)]));
const command = (plan: ReturnType<typeof planProbe> | undefined) => (plan?.kind === 'method' && plan.method.type === 'CLI' ? plan.method.command : undefined);
const reason = (plan: ReturnType<typeof planProbe> | undefined) => (plan?.kind === 'unknown' ? plan.reason : '');

/** Claims and anti-claims each fixture holds, counted by hand. */
const COUNTS: Record<string, { claims: number; anti: number; probes: number }> = {
  'ISA-editor-greet.md': { claims: 7, anti: 1, probes: 6 },
  'lifeos-invented-types.md': { claims: 14, anti: 3, probes: 14 },
  'lifeos-loose-yaml.md': { claims: 4, anti: 1, probes: 4 },
  'lifeos-minimal.md': { claims: 3, anti: 1, probes: 0 },
  'lifeos-v218.md': { claims: 5, anti: 1, probes: 5 },
};

async function check(file: string): Promise<{ code: number; json: { format?: string; diagnostics: { severity: string; rule: string; line: number }[]; criteria: { id: string; anti: boolean; probe: unknown }[] } }> {
  const out: string[] = [];
  const code = await prdCheck(file, true, { out: (s) => out.push(s), err: (s) => out.push(s) });
  return { code, json: JSON.parse(out.join('\n')) };
}

describe('ISA: the files people have today (LifeOS ISAFormat v2.18 patterns)', () => {
  it('has a fixture for each pattern, and counts for each', () => {
    assert.deepEqual(names(), Object.keys(COUNTS).sort());
  });

  for (const name of Object.keys(COUNTS)) {
    it(`${name}: \`prd check\` and the parser read it with zero errors, and count its claims and anti-claims right`, async () => {
      const { code, json } = await check(path.join(DIR, name));
      assert.equal(json.format, 'isa', 'read as an ISA without its file name saying so');
      assert.deepEqual(json.diagnostics.filter((d) => d.severity === 'error'), []);
      assert.equal(code, 0);
      const want = COUNTS[name]!;
      assert.equal(json.criteria.length, want.claims);
      assert.equal(json.criteria.filter((c) => c.anti).length, want.anti);
      const doc = parseIsa(read(name));
      assert.deepEqual(errors(checkIsa(read(name))), []);
      assert.equal(doc.probes.length, want.probes);
    });

    for (const [variant, transform] of Object.entries(VARIANTS)) {
      it(`${name} (${variant}) round-trips byte for byte`, () => {
        const text = transform(read(name));
        const doc = parseIsa(text);
        assert.equal(joinLines(doc.source), text);
        assert.deepEqual(
          doc.claims.map((c) => [c.id, c.anti]),
          parseIsa(read(name)).claims.map((c) => [c.id, c.anti]),
        );
        assert.equal(writeIsaOutcomes(doc, [], { date: '2026-11-26' }).length > 0, true);
      });
    }
  }

  describe('an HTML comment and blank lines before the frontmatter', () => {
    it('reads the frontmatter of an ISA after them, and recognises it as an ISA by its content', () => {
      const text = read('lifeos-minimal.md');
      const doc = parseIsa(text);
      assert.equal(doc.frontmatter?.open, 2);
      assert.deepEqual([doc.meta.phase, doc.meta.progress, doc.meta.title], ['execute', '0/3', 'Add a --quiet flag to the sync CLI']);
      assert.equal(recogniseFormat(text), 'isa', 'effort_source and `ISC-3: Anti:` are the ISA’s, not PAI’s PRD');
      assert.deepEqual(doc.claims.map((c) => [c.id, c.anti]), [['ISC-1', false], ['ISC-2', false], ['ISC-3', true]]);
      const range = keyRange(doc.frontmatter!, 'progress');
      assert.equal(range?.start.line, 8, 'a key is located at its own line, below the comment');
    });

    it('reads a multi-line comment, and the progress written back lands on the progress line', () => {
      const text = read('lifeos-loose-yaml.md');
      const doc = parseIsa(text);
      assert.equal(doc.frontmatter?.open, 7);
      const written = writeIsaOutcomes(doc, [{ criterionId: 'ISC-1', outcome: 'PASS', evidence: 'scopes match' }], { date: '2026-11-26' });
      const progressLine = text.split('\n').findIndex((l) => l.startsWith('progress:')) + 1;
      const claimLine = text.split('\n').findIndex((l) => l.includes('ISC-1: The new deploy')) + 1;
      const changed = differingLines(text, written);
      assert.ok(changed.includes(progressLine) && changed.includes(claimLine), changed.join(','));
      assert.match(written, /^progress: 1\/4$/m);
      assert.ok(written.startsWith(text.split('---')[0]!), 'the comments stay as they were');
    });

    it('reads a PRD’s frontmatter after them too, and edits it in place', () => {
      const prd = ['<!-- generated by a template -->', '', '---', 'prd: true', 'id: PRD-1', 'status: DRAFT', '---', '', '# T', '', '## Problem Space', 'x', '', '## Ideal State Criteria', '- [ ] ISC-1: The readme names the project in its first line | Verify: Read: README.md', ''].join('\n');
      const doc = parsePrd(prd);
      assert.equal(doc.frontmatter?.open, 2);
      assert.equal(doc.meta.id, 'PRD-1');
      assert.equal(recogniseFormat(prd), 'prd');
      assert.deepEqual(doc.diagnostics.filter((d) => d.severity === 'error'), []);
      const edited = applyEdits(doc, [{ kind: 'setFrontmatter', key: 'status', value: 'IN_PROGRESS' }]);
      assert.deepEqual(differingLines(prd, edited), [6]);
      assert.match(edited, /^status: IN_PROGRESS$/m);
    });

    it('reports a YAML error of such a frontmatter at its own line', () => {
      const doc = parsePrd(['<!-- c -->', '---', 'prd: true', 'id: [x', '---', ''].join('\n'));
      const yaml = doc.diagnostics.find((d) => d.rule === 'yaml-syntax');
      assert.ok(yaml && yaml.range.start.line >= 3, JSON.stringify(yaml));
    });

    it('does not take text before the fence for a comment', () => {
      assert.equal(parsePrd('Some prose.\n---\nprd: true\n---\n').frontmatter, undefined);
    });
  });

  describe('check types the ISA invented', () => {
    const doc = parseIsa(read('lifeos-invented-types.md'));
    const plan = plans(doc);

    it('is a located warning, never an error', () => {
      const found = checkIsa(read('lifeos-invented-types.md')).diagnostics.filter((d) => d.rule === 'probe-unknown-type');
      assert.equal(found.length, 14);
      assert.ok(found.every((d) => d.severity === 'warning'));
      assert.deepEqual(found.map((d) => d.range.start.line), doc.probes.map((p) => p.line));
      const types = doc.probes.map((p) => p.type);
      for (const t of ['integration', 'word-count', 'performance', 'coverage-probe', 'parity-test', 'experiential-probe', 'notarization', 'bundle-size', 'line-count', 'reader-comprehension', 'cli-probe']) assert.ok(types.includes(t), t);
    });

    it('runs a command whose exit status decides the threshold (CLI)', () => {
      assert.equal(command(plan['ISC-1']), './test/integration/clean-tree.sh && tally count ./fixtures');
      assert.equal(command(plan['ISC-3']), 'diff <(tally count corpus) <(legacy-tally corpus)', 'diff exits 0 exactly when the outputs are identical');
      assert.equal(command(plan['ISC-5']), 'npx c8 --check-coverage --lines 90 npm test');
      assert.equal(command(plan['ISC-9']), 'spctl --assess --type execute dist/Tally.app');
      assert.equal(command(plan['ISC-12']), "! tally count ./missing 2>&1 | grep -q 'at '");
      assert.equal(command(plan['ISC-13']), 'node scripts/max-lines.js src 400');
    });

    it('fetches a URL (the curl mapping): a 2xx for HTTP 200, the named status otherwise', () => {
      assert.equal(command(plan['ISC-7']), "curl -fsS -o /dev/null --max-time 30 'https://tally.example.org/status'");
      assert.equal(command(plan['ISC-8']), `test "$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 'https://tally.example.org/admin')" = "401"`);
    });

    it('leaves UNKNOWN, with the reason, a threshold an exit status cannot decide and a check a person makes', () => {
      for (const id of ['ISC-2', 'ISC-4', 'ISC-6', 'ISC-10']) assert.match(reason(plan[id]), /threshold ".+" is not an exit status/, id);
      for (const id of ['ISC-11', 'ISC-14']) assert.match(reason(plan[id]), /describes a check .* rather than naming a command/, id);
      assert.match(reason(plan['ISC-4']), /^the "performance" probe's threshold "≤ 3000ms"/);
    });

    it('verifies such an ISA: a passing command passes, the others are UNKNOWN with their reason, never "zero probes, all green"', async () => {
      const isa = [
        '<!-- a test ISA -->',
        '---',
        'phase: climbing',
        'progress: 0/3',
        '---',
        '## Criteria',
        '- [ ] ISC-1: The integration script exits cleanly on the fixture tree.',
        '- [ ] ISC-2: The README stays under one thousand words in total.',
        '- [ ] ISC-3: Anti: first-time readers never find the output cluttered.',
        '## Test Strategy',
        '```yaml',
        '- isc: ISC-1',
        '  type: integration',
        '  threshold: exit 0',
        `  tool: node -e "process.exit(0)"`,
        '- isc: ISC-2',
        '  type: word-count',
        '  threshold: ≤ 1000 words',
        '  tool: wc -w README.md',
        '- isc: ISC-3',
        '  type: experiential-probe',
        '  threshold: principal recognises it',
        '  tool: principal reads it once',
        '```',
        '',
      ].join('\n');
      const root = workspace({ 'README.md': 'short\n', 'work/ISA.md': isa });
      const result = await verifyPrdFile({ file: path.join(root, 'work/ISA.md'), workspace: root, checks: { timeoutSeconds: 30 }, commands: { yes: true, off: false }, report: { store: false }, warn: () => undefined });
      assert.equal(result.kind, 'verified');
      if (result.kind !== 'verified') return;
      const byId = Object.fromEntries(result.set.results.map((r) => [r.criterionId, r]));
      assert.deepEqual([byId['ISC-1']!.outcome, byId['ISC-2']!.outcome, byId['ISC-3']!.outcome], ['PASS', 'UNKNOWN', 'UNKNOWN']);
      assert.match(byId['ISC-2']!.evidence, /threshold "≤ 1000 words" is not an exit status/);
      assert.match(byId['ISC-3']!.evidence, /describes a check/);
      assert.equal(result.set.passed, false);
    });
  });

  describe('Test Strategy YAML that a strict parser refuses', () => {
    const text = read('lifeos-loose-yaml.md');

    it('reproduces each refusal of the strict parser, one entry each', () => {
      const block = text.slice(text.indexOf('```yaml') + 8, text.lastIndexOf('```'));
      const entries = block.split(/\n(?=- isc:)/);
      const refusals = entries.map((e) => parseDocument(e).errors.map((x) => x.message.split(' at line')[0]));
      assert.deepEqual(refusals.slice(0, 3).map((r) => r[0]), ['Nested mappings are not allowed in compact mappings', 'Block scalar header includes extra characters: |reads|', 'Unexpected scalar at node end']);
    });

    it('reads it line by line, with a warning at the first refusal, never an error', () => {
      const { document: doc, diagnostics } = checkIsa(text);
      assert.deepEqual(errors({ diagnostics }), []);
      const warning = diagnostics.find((d) => d.rule === 'test-strategy-yaml');
      assert.equal(warning?.severity, 'warning');
      assert.match(warning!.message, /not strict YAML \(Nested mappings are not allowed in compact mappings/);
      assert.deepEqual(
        doc.probes.map((p) => [p.isc, p.type, p.threshold, p.form]),
        [
          ['ISC-1', 'api-probe', 'exit 0', 'yaml'],
          ['ISC-2', 'audit-completeness', '|reads| == |audit_events| within 60s', 'yaml'],
          ['ISC-3', 'distribution', '"Live on the store" by 2026-12-15', 'yaml'],
          ['ISC-4', 'anti-probe', 'HTTP 401', 'yaml'],
        ],
      );
      assert.equal(doc.probes[0]!.check, "new token's scopes are exactly [deploy:write]");
      assert.equal(doc.probes[0]!.tool, `curl -s -H "Authorization: Bearer $NEW_TOKEN" https://deploy.example.org/v1/me | jq -e '.scopes == ["deploy:write"]'`);
      assert.deepEqual(doc.probes.map((p) => p.line + 1), [25, 31, 37, 43], 'each entry at its own line');
    });

    it('reads a block scalar and a continued value', () => {
      const doc = parseIsa(['## Claims', '- [ ] C1: The export writes one header row per file.', '## Test Strategy', '```yaml', '- isc: C1', '  type: bash', '  check: header: present', '  threshold: exit 0', '  tool: |', '    node scripts/header.js', '    --all', '```', ''].join('\n'));
      assert.deepEqual(doc.probes.map((p) => [p.check, p.tool]), [['header: present', 'node scripts/header.js\n--all']]);
    });
  });

  describe('ISAFormat v2.16–v2.18', () => {
    const text = read('lifeos-v218.md');
    const doc = parseIsa(text);

    it('reads the features, each with its Why and its claims', () => {
      assert.deepEqual(
        doc.features.map((f) => [f.id, f.name, f.why, f.claims]),
        [
          ['F0', 'Cross-cutting', 'every billing page is safe to load whatever the feature.', ['ISC-1', 'ISC-2']],
          ['F1', 'Checkout', 'a visitor becomes a paying subscriber without talking to anyone.', ['ISC-3', 'ISC-4']],
          ['F2', 'Cancel', 'leaving is as easy as joining, so nobody has to ask support.', ['ISC-5']],
        ],
      );
      assert.deepEqual(doc.claims.map((c) => c.feature), ['F0', 'F0', 'F1', 'F1', 'F2']);
    });

    it('reads Language, the fog, principal_stated_goal, frozen, anchors_to and severity', () => {
      assert.deepEqual(doc.language.map((t) => t.term), ['Plan']);
      assert.deepEqual(doc.fog.map((f) => f.line + 1), [46, 47]);
      assert.equal(doc.principalStatedGoal, 'I want buyers to subscribe and cancel on their own without ever writing to support');
      assert.equal(doc.frozen, true);
      assert.deepEqual(doc.probes.map((p) => p.severity ?? ''), ['critical', 'critical', '', 'normal', '']);
      assert.deepEqual(doc.probes.map((p) => p.anchorsTo ?? ''), ['derived: safety', 'derived: privacy', 'literal', 'literal', '']);
      assert.equal(parseIsa(text.replace('frozen: true\n', '')).frozen, undefined);
      assert.equal(parseIsa(text.replace(/^principal_stated_goal: .*$/m, 'principal_stated_goal: null')).principalStatedGoal, null);
    });

    it('writes outcomes of feature claims back in place', () => {
      const written = writeIsaOutcomes(doc, [
        { criterionId: 'ISC-2', outcome: 'PASS', evidence: 'no card numbers' },
        { criterionId: 'ISC-5', outcome: 'FAIL', evidence: 'cancel ends at once' },
      ], { date: '2026-11-26' });
      const line = (id: string) => text.split('\n').findIndex((l) => l.includes(`${id}: `)) + 1;
      const progress = text.split('\n').findIndex((l) => l.startsWith('progress:')) + 1;
      // ISC-5 was not checked and fails: its box stays as it is; its Verification line is added.
      assert.deepEqual(differingLines(text, written).slice(0, 2), [progress, line('ISC-2')]);
      assert.ok(!differingLines(text, written).includes(line('ISC-5')));
      assert.match(written, /^- \[x\] ISC-2: Anti: no card number/m);
      assert.match(written, /^progress: 3\/5$/m);
      assert.match(written, /^- ISC-5: FAIL — cancel ends at once/m);
    });

    it('isaCompletionProblems: fog left, and at phase: complete a progress that is no count or a row without anchors_to', () => {
      assert.deepEqual(isaCompletionProblems(doc).map((p) => [p.rule, p.line + 1]), [['fog-left', 46], ['anchors-missing', 57]]);
      const climbing = parseIsa(text.replace('phase: complete', 'phase: climbing'));
      assert.deepEqual(isaCompletionProblems(climbing).map((p) => p.rule), ['fog-left'], 'fog keeps it from done at any phase; the close checks wait for complete');
      const noFog = text.replace(/^- fog: .*\n/gm, '').replace('| ISC-5 | bun-test | cancel at period end | pass | `bun test test/cancel.test.ts` | |', '| ISC-5 | bun-test | cancel at period end | pass | `bun test test/cancel.test.ts` | literal |');
      assert.deepEqual(isaCompletionProblems(parseIsa(noFog)), []);
      const opinion = parseIsa(noFog.replace('progress: 2/5', 'progress: done'));
      assert.deepEqual(isaCompletionProblems(opinion).map((p) => [p.rule, p.line]), [['progress-format', 2]]);
      assert.match(isaCompletionProblems(opinion)[0]!.message, /progress "done", which is not a count M\/N/);
      assert.ok(checkIsa(text).diagnostics.some((d) => d.rule === 'fog-left' && d.severity === 'warning'), 'prd check says so, as a warning');
    });

    it('the done gate does not let an agent stop while fog is left, though every claim passes', async () => {
      const isa = [
        '---',
        'phase: climbing',
        'progress: 0/1',
        '---',
        '## Claims',
        '- [ ] C1: Anti: the workspace holds no file named forbidden.txt anywhere.',
        '## Not yet specified',
        '- fog: whether archived files count — waits on the retention policy',
        '## Test Strategy',
        '| isc | type | check | threshold | tool |',
        '|---|---|---|---|---|',
        `| C1 | bash | no forbidden file | exit 0 | \`node -e "process.exit(require('fs').existsSync('forbidden.txt') ? 1 : 0)"\` |`,
        '',
      ].join('\n');
      const root = workspace({ 'ISA.md': isa });
      const verify = (text: string) => {
        fs.writeFileSync(path.join(root, 'ISA.md'), text);
        return verifyPrdFile({ file: path.join(root, 'ISA.md'), workspace: root, checks: { timeoutSeconds: 30 }, commands: { yes: true, off: false }, report: { store: false }, warn: () => undefined });
      };
      const context = { before: 0, maxBlocks: 3, heldBy: 'none' as const };
      const held = (result: GateVerification) => [{ file: path.join(root, 'ISA.md'), shown: 'ISA.md', result, changes: [] }];
      const foggy = await verify(isa);
      assert.equal(foggy.kind === 'verified' && foggy.set.results.every((r) => r.outcome === 'PASS'), true, 'every claim passes');
      const verdict = gateVerdict(held(foggy), context);
      assert.equal(verdict.kind, 'block');
      assert.match(verdict.kind === 'block' ? verdict.reason : '', /not done: line 8: 1 unresolved line in "## Not yet specified"/);
      const clear = await verify(isa.replace(/^- fog: .*\n/m, ''));
      assert.equal(gateVerdict(held(clear), context).kind, 'allow');
    });

    it('severity: critical names the claims that do not pass as down; every claim still blocks', async () => {
      const isa = [
        '---',
        'phase: build',
        'progress: 0/2',
        '---',
        '## Claims',
        '- [ ] C1: The pipeline writes today.txt in the workspace root.',
        '- [ ] C2: The status page file exists in the workspace root.',
        '- [ ] C3: Anti: the workspace holds no file named forbidden.txt anywhere.',
        '## Test Strategy',
        '| isc | type | check | threshold | tool | anchors_to | severity |',
        '|---|---|---|---|---|---|---|',
        `| C1 | bash | today written | exit 0 | \`node -e "process.exit(require('fs').existsSync('today.txt') ? 0 : 1)"\` | literal | critical |`,
        `| C2 | bash | status page | exit 0 | \`node -e "process.exit(require('fs').existsSync('status.html') ? 0 : 1)"\` | literal | |`,
        `| C3 | bash | no forbidden file | exit 0 | \`node -e "process.exit(require('fs').existsSync('forbidden.txt') ? 1 : 0)"\` | literal | |`,
        '',
      ].join('\n');
      const root = workspace({ 'ISA.md': isa });
      const run = () => verifyPrdFile({ file: path.join(root, 'ISA.md'), workspace: root, checks: { timeoutSeconds: 30 }, commands: { yes: true, off: false }, report: { store: false }, warn: () => undefined });
      const both = await run();
      assert.equal(both.kind, 'verified');
      const set = both.kind === 'verified' ? both.set : undefined;
      assert.equal(set?.passed, false);
      assert.match(set?.summary ?? '', /down: C1 \(severity: critical\) does not pass/);
      fs.writeFileSync(path.join(root, 'today.txt'), 'x');
      const normalOnly = await run();
      const after = normalOnly.kind === 'verified' ? normalOnly.set : undefined;
      assert.equal(after?.passed, false, 'a failing normal-severity claim still keeps the ISA from done');
      assert.doesNotMatch(after?.summary ?? '', /down:/);
    });
  });
});
