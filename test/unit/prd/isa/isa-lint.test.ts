import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { prdCheck } from '../../../../src/cli/commands/prd-check';
import { checkIsa } from '../../../../src/prd';
import { isaFixture, isaFixtureNames } from '../../support/isa-helpers';

const found = (text: string) => checkIsa(text).diagnostics.map((d) => [d.line, d.severity, d.rule]);

describe('ISA: lint', () => {
  it('names each ISA problem at its line: no probe, an unknown claim, an unknown check type, no command, progress that does not count', () => {
    const { diagnostics } = checkIsa(isaFixture('lint-cases.md'));
    const at = (rule: string) => diagnostics.filter((d) => d.rule === rule).map((d) => d.line);
    assert.deepEqual(at('claim-no-probe'), [11], 'ISC-2 has no Test Strategy row');
    assert.deepEqual(at('probe-unknown-claim'), [21], 'the row for ISC-9');
    assert.deepEqual(at('probe-unknown-type'), [22], '"fuzz" is not a check type of the format');
    assert.deepEqual(at('probe-no-command'), [20], 'ISC-3 says only "bash"');
    assert.deepEqual(at('progress-mismatch'), [3]);
    assert.match(diagnostics.find((d) => d.rule === 'progress-mismatch')!.message, /progress says 3\/4, the checkboxes say 1\/4/);
    // Real ISAs invent check types (issue 27): a warning that says how the claim is verified, never an error that blocks.
    assert.match(diagnostics.find((d) => d.rule === 'probe-unknown-type')!.message, /^check type "fuzz" for ISC-4 is not one of bash, bun-test, bun-property, curl, manual, screenshot, eval; it is verified by running `bun test` \(exit 0 = holds\)$/);
    assert.equal(diagnostics.find((d) => d.rule === 'probe-unknown-type')!.severity, 'warning');
    assert.deepEqual(diagnostics.filter((d) => d.severity === 'error').map((d) => d.rule), ['probe-unknown-claim']);
  });

  it('applies the product’s wording rules to claims (an action instead of a state)', () => {
    const action = checkIsa(isaFixture('lint-cases.md')).diagnostics.find((d) => d.rule === 'isc-action');
    assert.deepEqual([action?.line, action?.column], [13, 14]);
    assert.match(action!.message, /ISC-4 is an action \("Add …"\)/);
  });

  it('warns when there is no anti-claim, and finds no problem in the well-formed fixtures', () => {
    assert.deepEqual(found('---\nphase: climbing\nprogress: 0/1\n---\n## Claims\n- [ ] C1: The report page lists every run of the last seven days.\n\n## Test Strategy\n| C1 | bash | runs listed | exit 0 | `true` |\n'), [[5, 'warning', 'isc-no-anti']]);
    for (const name of ['v8-claims.md', 'legacy-criteria.md', 'yaml-strategy.md', 'features.md']) {
      assert.deepEqual(checkIsa(isaFixture(name)).diagnostics.filter((d) => d.severity === 'error'), [], name);
    }
    assert.ok(isaFixtureNames().includes('lint-cases.md'));
  });

  it('refuses a row with more cells than columns: a pipe that was not escaped cut its command', () => {
    const text = ['## Claims', '- [ ] C1: The status JSON lists every service with its health.', '- [ ] A2: Anti: the status JSON never lists a service twice.', '', '## Test Strategy', '| isc | type | check | threshold | tool |', '| C1 | bash | services listed | exit 0 | curl -s localhost/status | jq -e .services |', '| A2 | bash | no duplicates | exit 0 | `test -z "$(jq -r .services[].name s.json \\| sort \\| uniq -d)"` |', ''].join('\n');
    const { document, diagnostics } = checkIsa(text);
    assert.deepEqual(diagnostics.filter((d) => d.severity === 'error').map((d) => [d.line, d.rule]), [[7, 'probe-cells']]);
    assert.equal(document.probes[1]!.tool, 'test -z "$(jq -r .services[].name s.json | sort | uniq -d)"');
  });

  it('refuses a checkbox without an id and a duplicate id at their lines; YAML a strict parser refuses is read line by line, with a warning', () => {
    const text = ['## Claims', '- [ ] just a wish', '- [ ] C1: The export has a header row in every file.', '- [ ] C1: Anti: the export never contains a password hash.', '', '## Test Strategy', '```yaml', '- isc: C1', '  type: [bash', '```', ''].join('\n');
    assert.deepEqual(
      checkIsa(text).diagnostics.filter((d) => d.severity === 'error').map((d) => [d.line, d.rule]),
      [
        [2, 'malformed-claim'],
        [4, 'duplicate-id'],
      ],
    );
    const { document, diagnostics } = checkIsa(text);
    assert.deepEqual(diagnostics.filter((d) => d.rule === 'test-strategy-yaml').map((d) => [d.line, d.severity]), [[9, 'warning']]);
    assert.deepEqual(document.probes.map((p) => [p.isc, p.type]), [['C1', '[bash']]);
  });
});

describe('command line: prd check on an ISA', () => {
  it('lists an ISA’s problems at their lines and its claims with their probes, exit 1 on errors', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-isa-')), 'ISA.md');
    fs.writeFileSync(file, isaFixture('lint-cases.md'));
    const out: string[] = [];
    assert.equal(await prdCheck(file, false, { out: (s) => out.push(s), err: (s) => out.push(s) }), 1);
    assert.ok(out.includes(`${file}:22:1: warning: check type "fuzz" for ISC-4 is not one of bash, bun-test, bun-property, curl, manual, screenshot, eval; it is verified by running \`bun test\` (exit 0 = holds) [probe-unknown-type]`), out.join('\n'));
    assert.match(out[out.length - 1]!, /: ISA, 4 claims, 1 error, \d+ warnings$/);
    const json: string[] = [];
    fs.writeFileSync(file, isaFixture('v8-claims.md'));
    assert.equal(await prdCheck(file, true, { out: (s) => json.push(s), err: (s) => json.push(s) }), 0);
    const parsed = JSON.parse(json[0]!);
    assert.deepEqual(parsed.criteria.map((c: { id: string; anti: boolean; line: number; probe: { type: string } }) => [c.id, c.anti, c.line, c.probe.type]), [
      ['C1', false, 17, 'bash'],
      ['C2', false, 18, 'bun-test'],
      ['C3', true, 19, 'bash'],
      ['A4', true, 20, 'curl'],
    ]);
  });
});
