import * as assert from 'node:assert/strict';
import { joinLines, parseIsa, planProbe, recogniseFormat, writeIsaOutcomes, type IsaDocument } from '../../../../src/prd';
import { isaFixture, isaFixtureNames } from '../../support/isa-helpers';
import { fixture, fixtureNames, VARIANTS } from '../prd-helpers';

const claimsOf = (doc: IsaDocument) => doc.claims.map((c) => ({ id: c.id, checked: c.checked, anti: c.anti, tombstone: c.tombstone, ...(c.parent ? { parent: c.parent } : {}) }));
const probesOf = (doc: IsaDocument) => doc.probes.map((p) => [p.isc, p.type, p.tool, p.line + 1]);

describe('ISA: parse', () => {
  it('has at least five ISA fixtures written from the specification', () => {
    assert.ok(isaFixtureNames().length >= 5, isaFixtureNames().join(', '));
  });

  for (const name of isaFixtureNames()) {
    for (const [variant, transform] of Object.entries(VARIANTS)) {
      it(`writes ${name} (${variant}) back byte for byte and reads it the same way`, () => {
        const text = transform(isaFixture(name));
        const doc = parseIsa(text);
        assert.equal(joinLines(doc.source), text);
        const lf = parseIsa(isaFixture(name));
        assert.deepEqual(claimsOf(doc), claimsOf(lf));
        assert.deepEqual(probesOf(doc), probesOf(lf));
        assert.deepEqual(doc.meta, lf.meta);
      });
    }
  }

  it('reads v8 short ids, em-dash separators, `Anti:` and A-ids as anti-claims, and a table without a separator row', () => {
    const doc = parseIsa(isaFixture('v8-claims.md'));
    assert.deepEqual(claimsOf(doc), [
      { id: 'C1', checked: true, anti: false, tombstone: false },
      { id: 'C2', checked: false, anti: false, tombstone: false },
      { id: 'C3', checked: false, anti: true, tombstone: false },
      { id: 'A4', checked: false, anti: true, tombstone: false },
    ]);
    assert.equal(doc.claims[2]!.text, 'running without `--json` produces byte-identical text to before.');
    assert.equal(doc.claims[1]!.text, 'The JSON carries the same fields the text output shows.');
    assert.deepEqual(probesOf(doc), [
      ['C1', 'bash', 'bash', 24],
      ['C2', 'bun-test', 'bun test test/cli.test.ts -t "json parity"', 25],
      ['C3', 'bash', 'bash', 26],
      ['A4', 'curl', 'test -z "$(curl -s localhost:8080/status.json | grep -i api_key)"', 27],
    ]);
    assert.equal(doc.probes[0]!.check, '`cli --json | jq .` exits 0', 'an escaped pipe stays inside its cell');
    assert.equal(doc.probes[2]!.anchorsTo, 'derived: text-parity');
    assert.deepEqual([doc.meta.phase, doc.meta.progress, doc.meta.title, doc.meta.id], ['climbing', '1/4', 'add --json output flag to the CLI', '20261124-140000_cli-json-flag']);
    assert.deepEqual(doc.diagnostics, []);
  });

  it('reads splits as parts of their container, keeps tombstones out, and reads severity', () => {
    const doc = parseIsa(isaFixture('legacy-criteria.md'));
    assert.deepEqual(claimsOf(doc), [
      { id: 'ISC-1', checked: true, anti: false, tombstone: false },
      { id: 'ISC-2', checked: false, anti: false, tombstone: false },
      { id: 'ISC-2.1', checked: true, anti: false, tombstone: false, parent: 'ISC-2' },
      { id: 'ISC-2.2', checked: false, anti: false, tombstone: false, parent: 'ISC-2' },
      { id: 'ISC-3', checked: false, anti: true, tombstone: false },
      { id: 'ISC-4', checked: false, anti: false, tombstone: true },
      { id: 'ISC-5', checked: false, anti: false, tombstone: false },
    ]);
    assert.deepEqual(doc.probes.map((p) => p.severity ?? ''), ['critical', '', 'normal', 'critical', '']);
    assert.deepEqual(doc.diagnostics, []);
  });

  it('reads the fenced-YAML Test Strategy with each entry at its own line, and `## Anti-claims`', () => {
    const doc = parseIsa(isaFixture('yaml-strategy.md'));
    assert.deepEqual(doc.claims.map((c) => [c.id, c.anti]), [['ISC-1', false], ['ISC-2', false], ['ISC-3', true]]);
    assert.deepEqual(probesOf(doc), [
      ['ISC-1', 'curl', 'bash scripts/burst.sh 61 | tail -1 | grep -q 429', 20],
      ['ISC-2', 'bun-property', 'bun test test/ratelimit.property.test.ts -t "resets"', 25],
      ['ISC-3', 'eval', 'bun skills/Evals/Tools/EvalRunner.ts -s admin-throttle', 30],
    ]);
    assert.ok(doc.probes.every((p) => p.form === 'yaml'));
    assert.equal(doc.probes[1]!.threshold, '1000');
    assert.equal(doc.sections.find((s) => s.kind === 'verification')?.heading, 'Log');
  });

  it('reads claims in feature blocks and bridge criteria, and maps a header in any column order', () => {
    const doc = parseIsa(isaFixture('features.md'));
    assert.deepEqual(doc.claims.map((c) => [c.id, c.section, c.anti]), [
      ['ISC-1', 'features', false],
      ['ISC-2', 'features', false],
      ['ISC-3', 'features', true],
      ['ISC-4', 'features', false],
      ['ISC-5', 'features', true],
      ['ISC-6', 'bridge', false],
    ]);
    assert.deepEqual(doc.probes.map((p) => [p.isc, p.type, p.anchorsTo]), [
      ['ISC-1', 'bun-property', 'literal'],
      ['ISC-2', 'curl', 'literal'],
      ['ISC-3', 'bash', 'derived: image-policy'],
      ['ISC-4', 'screenshot', 'literal'],
      ['ISC-5', 'manual', 'derived: privacy'],
      ['ISC-6', 'eval', 'cross: payments'],
    ]);
    assert.equal(doc.probes[0]!.check, '∀ listing. status(submit(listing)) = pending');
  });

  it('maps runnable checks to CLI, eval to CUSTOM, and manual and screenshot to an honest UNKNOWN', () => {
    const plans = Object.fromEntries(parseIsa(isaFixture('features.md')).probes.map((p) => [p.isc, planProbe(p)]));
    assert.deepEqual(plans['ISC-1'], { kind: 'method', method: { type: 'CLI', command: 'bun test test/listing.property.test.ts -t "pending"' } });
    assert.deepEqual(plans['ISC-2'], { kind: 'method', method: { type: 'CLI', command: 'curl -sf https://example.test/lots/x' } });
    assert.deepEqual(plans['ISC-3'], { kind: 'method', method: { type: 'CLI', command: 'bash scripts/image-format-audit.sh' } });
    assert.equal(plans['ISC-4']!.kind, 'unknown');
    assert.equal(plans['ISC-5']!.kind, 'unknown');
    assert.match(plans['ISC-5']!.kind === 'unknown' ? plans['ISC-5']!.reason : '', /manual probe/);
    assert.deepEqual(plans['ISC-6'], { kind: 'method', method: { type: 'CUSTOM', description: 'ledger and escrow agree; threshold: pass^3; tool: bun skills/Evals/Tools/EvalRunner.ts -s escrow' } });
    const v8 = Object.fromEntries(parseIsa(isaFixture('v8-claims.md')).probes.map((p) => [p.isc, planProbe(p)]));
    assert.deepEqual(v8['C1'], { kind: 'method', method: { type: 'CLI', command: 'cli --json | jq .' } }, 'a bare tool runs the code of the check when the threshold is an exit status');
    assert.equal(v8['C3']!.kind, 'unknown', '"`cli` output … is empty" with tool "bash" names no command that decides it');
  });

  it('tells an ISA from a PRD: prd: true, the file name, ISA-only sections and ids', () => {
    for (const name of isaFixtureNames()) assert.equal(recogniseFormat(isaFixture(name)), 'isa', name);
    for (const name of fixtureNames()) assert.equal(recogniseFormat(fixture(name), `.ideal-state/prds/${name}`), 'prd', name);
    assert.equal(recogniseFormat('# x\n\n## Criteria\n- [ ] ISC-1: a criterion of eight words or so here\n', 'work/ISA.md'), 'isa');
    assert.equal(recogniseFormat('---\nprd: true\n---\n## Test Strategy\n', 'ISA.md'), 'prd', 'prd: true wins');
  });

  it('reads lines built to make a regex backtrack (60,000 blanks, parentheses, dashes) in one pass', () => {
    const blanks = ' '.repeat(60_000);
    const text = [
      '---',
      `progress: 0/1${blanks}# a note`,
      '---',
      `## Claims${'('.repeat(60_000)}`,
      `## Claims (${blanks}x`,
      `## Claims (${blanks})`,
      '- [ ] C1: The exporter writes a header row in every file it makes.',
      '## Test Strategy',
      `|--${blanks}x`,
      `| C1 | bash | header row | exit 0 | \`true\` |${blanks}`,
      '',
    ].join('\n');
    const doc = parseIsa(text);
    assert.equal(joinLines(doc.source), text);
    assert.deepEqual(doc.sections.map((x) => x.kind), ['other', 'other', 'claims', 'test-strategy']);
    assert.deepEqual(doc.probes.map((p) => p.isc.slice(0, 2)), ['--', 'C1'], 'the dashes row is not a separator (it ends in x), so it is read as a row');
    const written = writeIsaOutcomes(doc, [{ criterionId: 'C1', outcome: 'PASS', evidence: 'ok' }], { date: '2026-11-24' });
    assert.ok(written.startsWith(`---\nprogress: 1/1${blanks}# a note\n`), 'the count changes, the blanks and the comment stay');
  });
});
