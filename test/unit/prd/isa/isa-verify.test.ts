import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { verifyCommand } from '../../../../src/cli/commands/verify';
import { parseIsa, writeIsaOutcomes } from '../../../../src/prd';
import { isaFixture } from '../../support/isa-helpers';
import { workspace } from '../../support/verify-helpers';

const ISA = isaFixture('greeter-workspace.md');

/** A workspace of known truth: a README, no changelog, a greeter without a semicolon and without TODO. */
function greeter(app = "console.log('hi')\n", isa = ISA) {
  const root = workspace({ 'README.md': '# greeter\n', 'src/app.js': app, 'ISA.md': isa });
  return { root, file: path.join(root, 'ISA.md') };
}

async function verify(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verifyCommand(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const outcomes = (json: string) => Object.fromEntries((JSON.parse(json) as { results: { id: string; outcome: string }[] }).results.map((r) => [r.id, r.outcome]));

describe('ISA: verify', () => {
  it('verifies an ISA through `ideal-state verify` with the right outcome for every claim, under the ISA’s own ids', async () => {
    const { root, file } = greeter();
    const r = await verify([file, '--workspace', root, '--no-store', '--json', '--yes']);
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(outcomes(r.out), {
      C1: 'PASS',
      C2: 'FAIL',
      'ISC-3': 'FAIL',
      'ISC-3.1': 'PASS',
      'ISC-3.2': 'FAIL',
      A4: 'PASS',
      C5: 'UNKNOWN',
      C6: 'UNKNOWN',
      C8: 'UNKNOWN',
    });
    const out = JSON.parse(r.out);
    const byId = (id: string) => out.results.find((x: { id: string }) => x.id === id);
    assert.match(byId('C1').evidence, /`test -f README\.md` exited 0/);
    assert.match(byId('ISC-3').evidence, /^1 of 2 parts pass \(ISC-3\.1 PASS, ISC-3\.2 FAIL\)$/);
    assert.match(byId('C5').evidence, /^C5 is not checked here: a manual probe/);
    assert.match(byId('C6').evidence, /^C6 is not checked here: a screenshot probe/);
    assert.equal(byId('C5').failureLabel, 'UNSUPPORTED_CLAIM');
    assert.match(byId('C8').evidence, /no model configured to judge/, 'eval goes to the model judge (CUSTOM); the command line has none');
    assert.deepEqual(out.counts, { PASS: 3, FAIL: 3, PARTIAL: 0, UNKNOWN: 3 });
    assert.match(out.summary, /not passing CRITICAL: C2, ISC-3, ISC-3\.2, C5, C6, C8$/);
    assert.equal(out.passed, false);
  });

  it('fails an anti-claim exactly when its probe (the good state) fails', async () => {
    const { root, file } = greeter("console.log('hi'); // TODO: localise\n");
    const r = await verify([file, '--workspace', root, '--no-store', '--json', '--yes']);
    const got = outcomes(r.out);
    assert.deepEqual([got['A4'], got['ISC-3.2'], got['ISC-3']], ['FAIL', 'FAIL', 'FAIL']);
  });

  it('passes once every claim that can be checked passes and nothing is left unknown', async () => {
    const isa = ISA.split('\n').filter((l) => !/^(?:- \[ \] C[568]:|\| C[568] )/.test(l)).join('\n');
    const { root, file } = greeter("console.log('hi');\n", isa);
    fs.writeFileSync(path.join(root, 'CHANGELOG.md'), '# 1.0\n');
    const r = await verify([file, '--workspace', root, '--no-store', '--yes']);
    assert.equal(r.code, 0, r.out + r.err);
    assert.match(r.out, /^PASSED: 6 of 6 criteria pass/m);
  });

  it('writes outcomes back: checkboxes, progress and Verification lines, and no other line', async () => {
    const { root, file } = greeter();
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--write']);
    assert.equal(r.code, 1, r.err);
    const before = ISA.split('\n');
    const after = fs.readFileSync(file, 'utf8').split('\n');
    const changed = before.map((l, i) => [i + 1, l, after[i]] as const).filter(([, a, b]) => a !== b);
    assert.deepEqual(
      changed.map(([n, , b]) => [n, b!.replace(/ in \d+\.\d s \(ideal-state verify, \d{4}-\d{2}-\d{2}\)$/, ' (ideal-state verify, DATE)')]),
      [
        [5, 'progress: 3/8   # checked / total'],
        [13, '- [x] C1: The repository carries a README describing the greeter.'],
        [14, '- [ ] C2: The repository carries a changelog for this release.'],
        [16, '  - [x] ISC-3.1: The greeter source prints its greeting with console.log.'],
        [18, '- [x] A4: the greeter source holds no TODO marker at release.'],
        [43, '- C1: PASS — `test -f README.md` exited 0 (ideal-state verify, DATE)'],
        [44, '- C2: FAIL — `test -f CHANGELOG.md` exited 1 (ideal-state verify, DATE)'],
      ],
    );
    // Line 44 was the empty line a final newline leaves; the new Verification lines follow C1's, the file still ends with a newline.
    const added = after.slice(before.length);
    assert.deepEqual(added.map((l) => l.split(':')[0]), ['- ISC-3', '- ISC-3.1', '- ISC-3.2', '- A4', '- C5', '- C6', '- C8', '']);
    const again = await verify([file, '--workspace', root, '--no-store', '--yes', '--write']);
    assert.equal(again.code, 1);
    assert.equal(fs.readFileSync(file, 'utf8').split('\n').length, after.length, 'a second run replaces the Verification lines, never adds them twice');
  });

  it('keeps CRLF line endings on the lines it changes and adds, and leaves tombstones and containers it cannot prove alone', () => {
    const crlf = ISA.replace(/\n/g, '\r\n');
    const doc = parseIsa(crlf);
    const written = writeIsaOutcomes(doc, [
      { criterionId: 'C1', outcome: 'PASS', evidence: 'ok' },
      { criterionId: 'C7', outcome: 'PASS', evidence: 'a tombstone is never verified' },
      { criterionId: 'C99', outcome: 'PASS', evidence: 'not a claim' },
    ], { date: '2026-11-24', by: 'test' });
    assert.ok(!/[^\r]\n/.test(written), 'every line ends in CRLF');
    assert.match(written, /\r\n- C1: PASS — ok \(test, 2026-11-24\)\r\n$/);
    assert.match(written, /- \[ \] C7: \[DROPPED — see Decisions\]/);
    assert.doesNotMatch(written, /C99/);
    assert.match(written, /progress: 2\/8 {3}# checked \/ total/, 'C1 now checked, C2 still checked as written: 2 of the 8 leaf claims');
  });

  it('adds a Verification section and a progress line when the ISA has neither', () => {
    const text = '---\nphase: climbing\n---\n## Claims\n- [ ] C1: The export has a header row in every file.\n';
    const written = writeIsaOutcomes(text, [{ criterionId: 'C1', outcome: 'FAIL', evidence: 'no header\nsecond line' }], { date: '2026-11-24', by: 'test' });
    assert.equal(written, '---\nphase: climbing\nprogress: 0/1\n---\n## Claims\n- [ ] C1: The export has a header row in every file.\n\n## Verification\n\n- C1: FAIL — no header (test, 2026-11-24)\n');
  });

  it('refuses an ISA with errors (a row for a claim it does not have) as bad input, at its line', async () => {
    const bad = ISA.replace('| C2 | bash |', '| C9 | bash |');
    const { root, file } = greeter("console.log('hi')\n", bad);
    const r = await verify([file, '--workspace', root, '--no-store', '--yes']);
    assert.equal(r.code, 2);
    assert.match(r.err, /ISA\.md:29:1: error: the Test Strategy names C9, which is not a claim of this ISA/);
  });

  it('verifies a claim whose check type it does not know by its probe (issue 27): a warning, not bad input', async () => {
    const typo = ISA.replace('| C2 | bash |', '| C2 | bsh |');
    const { root, file } = greeter("console.log('hi')\n", typo);
    const r = await verify([file, '--workspace', root, '--no-store', '--json', '--yes']);
    assert.equal(r.code, 1, r.err);
    assert.equal(outcomes(r.out)['C2'], 'FAIL', '`test -f CHANGELOG.md` ran, and there is no changelog');
    assert.equal(outcomes(r.out)['C1'], 'PASS');
  });
});
