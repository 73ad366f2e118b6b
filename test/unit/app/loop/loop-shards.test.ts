import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifactCriteria, listArtifacts, parseShard, shardIndexOf, shardOf } from '../../../../src/app/loop';
import { loopCommand } from '../../../../src/cli/commands/loop';
import { tempDir } from '../../support/algorithm-helpers';
import { goodPage, LOOP_TEMPLATE, loopWorkspace, subRunSteps } from '../../support/loop-helpers';

const TEMPLATE_YAML = JSON.stringify(LOOP_TEMPLATE);

/** A workspace of pages with the test template as a workspace ISC definition (the in-process command line has no shipped folder). */
function cliWorkspace(count: number, failing: number): { workspace: string; files: string[]; store: string } {
  const ws = loopWorkspace(count, failing);
  fs.mkdirSync(path.join(ws.workspace, '.ideal-state/isc'), { recursive: true });
  fs.writeFileSync(path.join(ws.workspace, '.ideal-state/isc/test.loop-page.yaml'), TEMPLATE_YAML);
  fs.mkdirSync(path.join(ws.workspace, 'node_modules/x'), { recursive: true });
  fs.writeFileSync(path.join(ws.workspace, 'node_modules/x/README.md'), 'not an artifact');
  return { ...ws, store: path.join(tempDir('loop-cli-store'), 'db.sqlite') };
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await loopCommand(args, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) }, {});
  return { code, out, err };
}

describe('loop: artifacts, shards and templates', () => {
  it('puts every artifact in exactly one shard, by a hash of its path, so adding a file moves no other', () => {
    const files = Array.from({ length: 1000 }, (_, i) => `docs/section-${i % 7}/page-${i}.md`).sort();
    const shards = [1, 2, 3, 4].map((i) => shardOf(files, i, 4));
    assert.deepEqual(shards.flat().sort(), files);
    assert.equal(new Set(shards.flat()).size, files.length);
    for (const s of shards) assert.ok(s.length > 150, `shards are roughly even (${shards.map((x) => x.length).join(', ')})`);
    const before = new Map(files.map((f) => [f, shardIndexOf(f, 4)]));
    const more = [...files, 'docs/new-page.md'];
    for (const f of files) assert.equal(shardIndexOf(f, 4), before.get(f));
    assert.deepEqual(shardOf(more, 1, 1), more);
    assert.deepEqual(parseShard('2/4'), { index: 2, count: 4 });
    for (const bad of ['0/4', '5/4', '2', 'a/b', '1/0']) assert.throws(() => parseShard(bad), /--shard takes I\/N/);
  });

  it('lists the files a glob matches, sorted, without node_modules or .gitignored ones, and refuses a glob outside the workspace', async () => {
    const { workspace, files } = cliWorkspace(5, 0);
    fs.writeFileSync(path.join(workspace, '.gitignore'), 'docs/page-005.md\n');
    assert.deepEqual(await listArtifacts(workspace, '**/*.md'), files.slice(0, 4));
    await assert.rejects(listArtifacts(workspace, '../elsewhere/*.md'), { code: 'LOOP_BAD_INPUT' });
  });

  it('gives each artifact the template criteria with ${file} and ${name} substituted, GREP scoped to the artifact', () => {
    const criteria = artifactCriteria(LOOP_TEMPLATE, 'docs/guide.md', '2026-11-24T00:00:00.000Z');
    assert.deepEqual(criteria.map((c) => c.id), ['ISC-LOOP-001', 'ISC-LOOP-002', 'ISC-LOOP-003', 'ISC-A-LOOP-001']);
    assert.equal(criteria[1]!.text, 'Page heading names the page guide');
    assert.deepEqual(criteria[1]!.verify, { type: 'GREP', pattern: '^# guide$', glob: 'docs/guide.md', expect: 'present' });
    assert.deepEqual(criteria[0]!.verify, { type: 'GREP', pattern: '^done$', glob: 'docs/guide.md', expect: 'present' });
  });
});

describe('loop: the command line, sharded and merged', () => {
  it('merges 4 verify-only shards into the report of the unsharded loop, and a loop PRD', async function () {
    this.timeout(120_000);
    const { workspace, store } = cliWorkspace(40, 9);
    const dir = tempDir('loop-shards');
    const base = ['--workspace', workspace, '--store', store, '--glob', 'docs/*.md', '--isc', 'test.loop-page', '--verify-only', '--json'];
    const whole = await cli([...base, '--out', path.join(dir, 'whole.json')]);
    assert.equal(whole.code, 1, whole.err);
    const unsharded = JSON.parse(whole.out);
    assert.equal(unsharded.state, 'FAILED');
    assert.equal(unsharded.report.total, 40);
    assert.equal(unsharded.report.passing, 31);
    for (const i of [1, 2, 3, 4]) {
      const r = await cli([...base, '--shard', `${i}/4`, '--out', path.join(dir, `shard-${i}.json`)]);
      assert.ok(r.code === 0 || r.code === 1, r.err);
    }
    const shards = [1, 2, 3, 4].map((i) => path.join(dir, `shard-${i}.json`));
    const merged = await cli(['merge', ...shards.reverse(), '--out', path.join(dir, 'merged.json'), '--prd', '--workspace', workspace, '--json']);
    assert.equal(merged.code, 1, merged.err);
    assert.deepEqual(JSON.parse(merged.out).report, unsharded.report);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(dir, 'merged.json'), 'utf8')), unsharded.report);
    const prd = fs.readFileSync(path.join(workspace, JSON.parse(merged.out).prd), 'utf8');
    assert.match(prd, /merged docs\/\*\.md: 31\/40 artifacts passing; 9 failing: docs\/page-001\.md/);
    assert.match(prd, /\| docs\/page-001\.md \| FAILING \| FAIL \| PASS \| FAIL \| FAIL \|/);

    // Bad shard input: missing, corrupt, another loop's.
    const missing = await cli(['merge', ...shards.slice(0, 3)]);
    assert.equal(missing.code, 2);
    assert.match(missing.err, /shard \d\/4 missing: give all 4 shard files/);
    fs.writeFileSync(path.join(dir, 'corrupt.json'), '{"kind": "ideal-state.loop-sha');
    const corrupt = await cli(['merge', path.join(dir, 'corrupt.json'), ...shards.slice(1)]);
    assert.equal(corrupt.code, 2);
    assert.match(corrupt.err, /corrupt\.json is not JSON/);
    const other = JSON.parse(fs.readFileSync(shards[0]!, 'utf8'));
    other.spec.glob = 'docs/**/*.md';
    other.specKey = 'another0loop0key';
    fs.writeFileSync(path.join(dir, 'other.json'), JSON.stringify(other));
    const foreign = await cli(['merge', ...shards.slice(1), path.join(dir, 'other.json')]);
    assert.equal(foreign.code, 2);
    assert.match(foreign.err, /other\.json is a shard of another loop/);
  });

  it('works the failing pages with --provider scripted, the script replayed per page with ${file} and ${name} put in', async function () {
    this.timeout(120_000);
    const { workspace, files, store } = cliWorkspace(4, 2);
    const script = path.join(tempDir('loop-script'), 'page.yaml');
    fs.writeFileSync(script, JSON.stringify({ name: 'page', steps: subRunSteps('docs/${name}.md', '# ${name}\n\ndone\n\nfooter\n') }));
    const r = await cli(['--workspace', workspace, '--store', store, '--glob', 'docs/*.md', '--isc', 'test.loop-page', '--agents', '2', '--approve', 'edits', '--provider', 'scripted', '--script', script, '--json']);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.state, 'COMPLETE');
    assert.equal(out.passing, 4);
    assert.match(out.prd, /^\.ideal-state\/prds\/loop-.*\.md$/);
    for (const f of files) assert.equal(fs.readFileSync(path.join(workspace, f), 'utf8'), goodPage(path.posix.basename(f, '.md')));
    const human = await cli(['--workspace', workspace, '--store', store, '--glob', 'docs/*.md', '--isc', 'test.loop-page', '--verify-only']);
    assert.equal(human.code, 0, human.err);
    assert.match(human.err, /^iteration 1: 4\/4 artifacts passing$/m);
    assert.match(human.out, /^COMPLETE: all 4 artifacts pass\nloop loop-\S+: 4\/4 artifacts passing, PRD \.ideal-state\/prds\/loop-/);
  });

  it('ends bad input with exit code 2 and a message that says what to do', async () => {
    const { workspace, store } = cliWorkspace(3, 0);
    const base = ['--workspace', workspace, '--store', store, '--verify-only'];
    const cases: [string[], RegExp][] = [
      [['--glob', 'docs/*.md', '--isc', 'no.such-template'], /no ISC template "no\.such-template"; the templates are .*test\.loop-page/],
      [['--glob', '../outside/*.md', '--isc', 'test.loop-page'], /leads outside the workspace/],
      [['--glob', 'nothing/*.md', '--isc', 'test.loop-page'], /matches no file/],
      [['--glob', 'docs/*.md', '--isc', 'test.loop-page', '--shard', '5/4', '--out', 'x.json'], /--shard takes I\/N/],
      [['--glob', 'docs/*.md', '--isc', 'test.loop-page', '--shard', '1/4'], /--shard I\/N needs --out FILE/],
      [['--glob', 'docs/*.md', '--isc', 'test.loop-page', '--agents', '0'], /--agents takes a whole number/],
      [['--glob', 'docs/*.md', '--isc', 'test.loop-page', '--effort', 'SLOWEST'], /--effort: /],
      [['--isc', 'test.loop-page'], /give --glob GLOB and --isc TYPE/],
      [['--resume', 'loop-nope'], /no loop loop-nope/],
    ];
    for (const [args, message] of cases) {
      const r = await cli([...base, ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, message, args.join(' '));
    }
  });
});
