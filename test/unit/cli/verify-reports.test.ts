import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { verifyCommand } from '../../../src/cli/commands/verify';
import { runCli } from '../support/cli-helpers';
import { isaFixture } from '../support/isa-helpers';
import { junitErrors, sarifErrors } from './report-schemas';
import { workspace } from '../support/verify-helpers';
import { REPO_ROOT } from '../support/repo-root';

/** sax (present through @vscode/vsce) is a strict, streaming XML 1.0 parser: it throws on anything not well-formed. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const sax = require('sax') as {
  parser(strict: boolean): { onerror: (e: Error) => void; onopentag: (n: { name: string; attributes: Record<string, string> }) => void; ontext: (t: string) => void; onclosetag: (name: string) => void; write(s: string): { close(): void } };
};

interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function parseXml(xml: string): XmlNode {
  const parser = sax.parser(true);
  const root: XmlNode = { name: '#document', attributes: {}, children: [], text: '' };
  const stack = [root];
  parser.onerror = (e) => {
    throw e;
  };
  parser.onopentag = (n) => {
    const node: XmlNode = { name: n.name, attributes: n.attributes, children: [], text: '' };
    stack[stack.length - 1]!.children.push(node);
    stack.push(node);
  };
  parser.ontext = (t) => (stack[stack.length - 1]!.text += t);
  parser.onclosetag = () => void stack.pop();
  parser.write(xml).close();
  assert.equal(root.children.length, 1, 'one root element');
  return root.children[0]!;
}

const ISA = isaFixture('greeter-workspace.md');

async function verify(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await verifyCommand(args, { out: (s) => out.push(s), err: (s) => err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function greeter() {
  const root = workspace({ 'README.md': '# greeter\n', 'src/app.js': "console.log('hi')\n", 'ISA.md': ISA });
  return { root, file: path.join(root, 'ISA.md') };
}

/** A PRD whose texts and evidence carry what XML and Markdown must escape: <, &, quotes, a pipe, a control character. */
function awkwardPrd() {
  const prd = [
    '---',
    'prd: true',
    'id: PRD-20261124-reports',
    'effort_level: INSTANT',
    '---',
    '# Reports',
    '',
    '## Problem Space',
    'CI shows criteria.',
    '',
    '## Ideal State Criteria',
    '- [ ] ISC-1: The page shows <b> & "quoted" text | pipes to users | Verify: CLI: printf \'<fail> & "bad" \\001 | done\'; exit 3',
    '- [ ] ISC-2: [IMPORTANT] The optional badge renders on the status page | Verify: CLI: exit 1',
    '- [ ] ISC-3: The readme file exists at the root of the repository | Verify: Read: README.md',
    '',
  ].join('\n');
  const root = workspace({ 'README.md': '# x\n', 'PRD.md': prd });
  return { root, file: path.join(root, 'PRD.md') };
}

describe('command line: verify --report', () => {
  it('writes JUnit XML valid against the JUnit XSD Jenkins checks: one test case per claim, failures and skips with the evidence in the body', async () => {
    const { root, file } = greeter();
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--report', 'junit']);
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(await junitErrors(r.out), []);
    const suites = parseXml(r.out);
    assert.equal(suites.name, 'testsuites');
    assert.deepEqual([suites.attributes.tests, suites.attributes.failures, suites.attributes.errors], ['9', '3', '0']);
    const suite = suites.children[0]!;
    assert.deepEqual([suite.attributes.name, suite.attributes.file], ['ISA.md', 'ISA.md']);
    assert.deepEqual([suite.attributes.tests, suite.attributes.failures, suite.attributes.skipped, suite.attributes.errors], ['9', '3', '3', '0']);
    const cases = suite.children.filter((c) => c.name === 'testcase');
    assert.deepEqual(cases.map((c) => c.attributes.name!.split(':')[0]), ['C1', 'C2', 'ISC-3', 'ISC-3.1', 'ISC-3.2', 'A4', 'C5', 'C6', 'C8']);
    const child = (id: string) => cases.find((c) => c.attributes.name!.startsWith(`${id}:`))!.children[0]!;
    assert.deepEqual([child('C1').name, child('C2').name, child('C5').name], ['system-out', 'failure', 'skipped']);
    assert.match(child('C2').text, /`test -f CHANGELOG\.md` exited 1/);
    assert.match(child('C2').attributes.message!, /^FAIL \[REQUIREMENT_COVERAGE\]: /);
    assert.match(child('C5').text, /a manual probe/);
    assert.match(child('C1').text, /^criterion at ISA\.md:13$/m, 'the line of C1 in ISA.md');
  });

  it('escapes what XML cannot hold as text: <, &, quotes, and control characters', async () => {
    const { root, file } = awkwardPrd();
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--report', 'junit']);
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(await junitErrors(r.out), []);
    assert.doesNotMatch(r.out, /\u0001/);
    const cases = parseXml(r.out).children[0]!.children.filter((c) => c.name === 'testcase');
    assert.equal(cases[0]!.attributes.name, 'ISC-1: The page shows <b> & "quoted" text | pipes to users');
    assert.match(cases[0]!.children[0]!.text, /<fail> & "bad" \uFFFD \| done/);
  });

  it('writes SARIF valid against the OASIS SARIF 2.1.0 schema, a result per criterion at its file and line, error for a CRITICAL failure', async () => {
    const { root, file } = greeter();
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--report', 'sarif']);
    assert.equal(r.code, 1, r.err);
    const log = JSON.parse(r.out);
    assert.deepEqual(sarifErrors(log), []);
    const results = log.runs[0].results as { ruleId: string; level: string; kind: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[];
    const at = (id: string) => results.find((x) => x.ruleId === id)!;
    assert.deepEqual([at('C1').level, at('C1').kind], ['none', 'pass']);
    assert.deepEqual([at('C2').level, at('C2').kind], ['error', 'fail']);
    assert.deepEqual([at('C5').level, at('C5').kind], ['note', 'review']);
    assert.deepEqual(at('ISC-3.2').locations[0]!.physicalLocation, { artifactLocation: { uri: 'ISA.md' }, region: { startLine: 17 } });
    assert.deepEqual(log.runs[0].tool.driver.rules.map((x: { id: string }) => x.id), results.map((x) => x.ruleId));
    // every result has the file and line code scanning needs (the schema would let an address stand in)
    for (const x of results) assert.ok(x.locations[0]!.physicalLocation.artifactLocation.uri && x.locations[0]!.physicalLocation.region.startLine >= 1, x.ruleId);
  });

  it('makes a failing criterion that is not CRITICAL a SARIF warning, and validates with awkward text', async () => {
    const { root, file } = awkwardPrd();
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--report', 'sarif']);
    const log = JSON.parse(r.out);
    assert.deepEqual(sarifErrors(log), []);
    assert.deepEqual(log.runs[0].results.map((x: { ruleId: string; level: string; locations: { physicalLocation: { region: { startLine: number } } }[] }) => [x.ruleId, x.level, x.locations[0].physicalLocation.region.startLine]), [
      ['ISC-1', 'error', 12],
      ['ISC-2', 'warning', 13],
      ['ISC-3', 'none', 14],
    ]);
  });

  it('holds reports to schemas that reject what CI rejects: a file attribute on a test case, a SARIF level outside the enum', async () => {
    const valid = '<testsuites><testsuite name="a" tests="1" failures="0" errors="0"><testcase name="t"/></testsuite></testsuites>';
    assert.deepEqual(await junitErrors(valid), []);
    assert.match((await junitErrors(valid.replace('<testcase name="t"', '<testcase name="t" file="a.md"'))).join('\n'), /attribute 'file' is not allowed/);
    const log = { version: '2.1.0', runs: [{ tool: { driver: { name: 'x' } }, results: [{ ruleId: 'ISC-1', level: 'error', message: { text: 'm' } }] }] };
    assert.deepEqual(sarifErrors(log), []);
    log.runs[0]!.results[0]!.level = 'fatal';
    assert.match(sarifErrors(log).join('\n'), /\/runs\/0\/results\/0\/level must be equal to one of the allowed values/);
  });

  it('writes a Markdown job summary: the verdict and one table row per criterion, pipes escaped', async () => {
    const { root, file } = awkwardPrd();
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--report', 'markdown']);
    const lines = r.out.split('\n');
    assert.match(lines[0]!, /^### ❌ Ideal State: not done — `PRD\.md`$/);
    const header = lines.indexOf('| Criterion | Outcome | Priority | Evidence |');
    assert.ok(header > 0);
    const rows = lines.slice(header + 2).filter((l) => l.startsWith('| '));
    assert.equal(rows.length, 3);
    for (const row of rows) assert.equal(row.replace(/\\\|/g, '').split('|').length, 6, `four cells: ${row}`);
    assert.match(rows[0]!, /^\| \*\*ISC-1\*\* The page shows &lt;b&gt; &amp; "quoted" text \\\| pipes to users \| ❌ FAIL \| CRITICAL \| /);
    assert.match(rows[1]!, /\| ❌ FAIL \| IMPORTANT \|/);
    assert.match(rows[2]!, /\| ✅ PASS \| CRITICAL \|/);
  });

  it('writes reports to files while the table stays on standard output', async () => {
    const { root, file } = greeter();
    const out = path.join(root, 'reports');
    const r = await verify([file, '--workspace', root, '--no-store', '--yes', '--report', `sarif=${out}/ideal-state.sarif`, '--report', `junit=${out}/junit.xml`]);
    assert.equal(r.code, 1);
    assert.match(r.out, /^criterion\s+outcome\s+time\s+evidence$/m);
    assert.equal(JSON.parse(fs.readFileSync(path.join(out, 'ideal-state.sarif'), 'utf8')).version, '2.1.0');
    assert.equal(parseXml(fs.readFileSync(path.join(out, 'junit.xml'), 'utf8')).name, 'testsuites');
    assert.deepEqual(await junitErrors(fs.readFileSync(path.join(out, 'junit.xml'), 'utf8')), []);
  });

  it('works from the built command line: an ISA verified into SARIF names the tool and its version', async () => {
    const { root, file } = greeter();
    const r = await runCli(['verify', file, '--workspace', root, '--no-store', '--yes', '--report', 'sarif']);
    assert.equal(r.code, 1, r.err);
    const driver = JSON.parse(r.out).runs[0].tool.driver;
    assert.equal(driver.name, 'ideal-state');
    assert.equal(driver.version, JSON.parse(fs.readFileSync(path.resolve(REPO_ROOT, 'package.json'), 'utf8')).version);
  });

  it('refuses an unknown format, a format twice, two reports on standard output, and one beside --json', async () => {
    const { root, file } = greeter();
    const cases: [string[], RegExp][] = [
      [['--report', 'xml'], /--report takes junit, sarif, markdown \(optionally =FILE\), not "xml"/],
      [['--report', 'junit', '--report', 'junit=x.xml'], /--report junit is given twice/],
      [['--report', 'junit', '--report', 'sarif'], /only one --report can go to standard output/],
      [['--report', 'sarif', '--json'], /--json and a --report without a file both want standard output/],
      [['--report', 'sarif='], /--report sarif= needs a file/],
    ];
    for (const [extra, message] of cases) {
      const r = await verify([file, '--workspace', root, '--no-store', '--yes', ...extra]);
      assert.equal(r.code, 2, extra.join(' '));
      assert.match(r.err, message);
    }
  });
});
