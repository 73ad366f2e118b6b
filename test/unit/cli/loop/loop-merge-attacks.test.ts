import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { loopCommand } from '../../../../src/cli/commands/loop';
import { tempDir } from '../../support/algorithm-helpers';
import { LOOP_TEMPLATE, loopWorkspace } from '../../support/loop-helpers';

/**
 * Issue 24, item 2: `loop merge` of crafted shard files. Each attack is refused (exit 2, with
 * the file, the field and what to do) or gives exactly the honest merge.
 */

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await loopCommand(args, { out: (s) => (out += `${s}\n`), err: (s) => (err += `${s}\n`) }, {});
  return { code, out, err };
}

type Shard = {
  specKey: string;
  spec: { glob: string; isc: string; maxIterations: number; [k: string]: unknown };
  shard: { index: number; count: number };
  criterionIds: string[];
  state: string;
  iteration: number;
  artifacts: { file: string; sha256: string; status: string; outcomes: Record<string, string>; evidence: Record<string, string>; runId?: string }[];
  [k: string]: unknown;
};

describe('loop merge under attack (issue 24)', function () {
  this.timeout(180_000);
  let workspace = '';
  let dir = '';
  let honest: { code: number; report: unknown; state: string } = { code: -1, report: null, state: '' };
  const shardPaths = () => [1, 2].map((i) => path.join(dir, `shard-${i}.json`));
  const read = (i: number): Shard => JSON.parse(fs.readFileSync(shardPaths()[i - 1]!, 'utf8')) as Shard;
  /** Writes a forged copy of shard `i` and merges it with the other honest one. */
  const mergeWith = async (i: number, forged: Shard | string, extra: string[] = []) => {
    const forgedPath = path.join(dir, `forged-${i}-${Math.random().toString(36).slice(2)}.json`);
    fs.writeFileSync(forgedPath, typeof forged === 'string' ? forged : JSON.stringify(forged));
    const files = shardPaths().map((p, k) => (k === i - 1 ? forgedPath : p));
    return { r: await cli(['merge', ...files, '--workspace', workspace, '--json', '--prd', ...extra]), forgedPath };
  };
  const refused = (r: { code: number; err: string }, file: string, field: RegExp | string, what: RegExp) => {
    assert.equal(r.code, 2, r.err);
    assert.ok(r.err.includes(path.basename(file)), `names the file: ${r.err}`);
    assert.match(r.err, typeof field === 'string' ? new RegExp(`: ${field.replace(/[[\].]/g, '\\$&')}: `) : field, 'names the field');
    assert.match(r.err, what);
    assert.match(r.err, /; (give|merge|run|an artifact)/, `says what to do: ${r.err}`);
  };

  before(async () => {
    ({ workspace } = loopWorkspace(10, 4));
    fs.mkdirSync(path.join(workspace, '.ideal-state/isc'), { recursive: true });
    fs.writeFileSync(path.join(workspace, '.ideal-state/isc/test.loop-page.yaml'), JSON.stringify(LOOP_TEMPLATE));
    dir = tempDir('loop-merge-attacks');
    const store = path.join(tempDir('loop-merge-store'), 'db.sqlite');
    const base = ['--workspace', workspace, '--store', store, '--glob', 'docs/*.md', '--isc', 'test.loop-page', '--verify-only', '--json'];
    for (const i of [1, 2]) {
      const r = await cli([...base, '--shard', `${i}/2`, '--out', path.join(dir, `shard-${i}.json`)]);
      assert.ok(r.code === 0 || r.code === 1, r.err);
    }
    const r = await cli(['merge', ...shardPaths(), '--workspace', workspace, '--json']);
    assert.equal(r.code, 1, r.err);
    const out = JSON.parse(r.out);
    honest = { code: r.code, report: out.report, state: out.state };
    assert.equal(out.report.total, 10);
    assert.equal(out.report.passing, 6);
    assert.ok(read(1).artifacts.length > 0 && read(2).artifacts.length > 0, 'both shards have artifacts');
  });

  it('statuses flipped to PASSING over FAIL outcomes and state COMPLETE: the merge derives them and equals the honest one (exit 1)', async () => {
    for (const i of [1, 2]) {
      const s = read(i);
      s.state = 'COMPLETE';
      for (const a of s.artifacts) a.status = 'PASSING';
      const { r } = await mergeWith(i, s);
      assert.equal(r.code, 1, r.err);
      const out = JSON.parse(r.out);
      assert.deepEqual(out.report, honest.report);
      assert.equal(out.state, honest.state);
    }
  });

  it('the failing artifacts dropped from a shard, or a shard emptied: refused, naming the artifacts without a result', async () => {
    const i = read(1).artifacts.some((a) => a.status === 'FAILING') ? 1 : 2;
    const dropped = read(i);
    dropped.artifacts = dropped.artifacts.filter((a) => a.status !== 'FAILING');
    const d = await mergeWith(i, dropped);
    refused(d.r, d.forgedPath, 'artifacts', /has no result|have no result/);
    const emptied = read(i);
    emptied.artifacts = [];
    const e = await mergeWith(i, emptied);
    refused(e.r, e.forgedPath, 'artifacts', /no result/);
  });

  it('paths outside the workspace, and a file that does not exist, are refused as PASSING results', async () => {
    for (const file of ['../../../../etc/passwd', '/root/.ssh/id_rsa', 'docs/../../outside.md', 'C:\\Windows\\win.ini']) {
      const s = read(1);
      s.artifacts.push({ file, sha256: 'a'.repeat(64), status: 'PASSING', outcomes: {}, evidence: {} });
      const { r, forgedPath } = await mergeWith(1, s);
      refused(r, forgedPath, /artifacts\[\d+\]\.file/, /is not a workspace-relative path inside the workspace/);
    }
    // A workspace-relative file the glob does not list here (it does not exist): refused, whichever shard it is put in.
    for (const i of [1, 2]) {
      const s = read(i);
      s.artifacts.push({ file: 'docs/no-such-page.md', sha256: 'a'.repeat(64), status: 'PASSING', outcomes: {}, evidence: {} });
      const { r, forgedPath } = await mergeWith(i, s);
      refused(r, forgedPath, /artifacts\[\d+\]\.file/, /(is not an artifact of docs\/\*\.md in this checkout|belongs to shard)/);
    }
  });

  it('one page listed three times counts once: refused', async () => {
    const s = read(1);
    const page = s.artifacts[0]!;
    s.artifacts.push({ ...page }, { ...page });
    const { r, forgedPath } = await mergeWith(1, s);
    refused(r, forgedPath, /artifacts\[\d+\]\.file/, /has a result already .* each artifact is merged exactly once/);
  });

  it('a foreign spec with a copied specKey is refused: the key is recomputed from the spec', async () => {
    const s = read(2);
    s.spec.glob = 'docs/page-00[1-3].md';
    const { r, forgedPath } = await mergeWith(2, s);
    refused(r, forgedPath, 'specKey', /but its spec's key is/);
  });

  it('a result for content that differs from this checkout is refused', async () => {
    const s = read(1);
    s.artifacts[0]!.sha256 = 'b'.repeat(64);
    const { r, forgedPath } = await mergeWith(1, s);
    refused(r, forgedPath, /artifacts\[0\]\.sha256/, /was verified at content bbbbbbbbbbbb… but is [0-9a-f]{12}… here/);
    // The same, the honest way: a page changed after the shards ran.
    const file = path.join(workspace, read(1).artifacts[0]!.file);
    const before = fs.readFileSync(file);
    fs.appendFileSync(file, '\nchanged after the shard ran\n');
    try {
      const changed = await cli(['merge', ...shardPaths(), '--workspace', workspace]);
      refused(changed, shardPaths()[0]!, /artifacts\[0\]\.sha256/, /the result is for other content/);
    } finally {
      fs.writeFileSync(file, before);
    }
  });

  it('a 400-byte shard with count 4294967296 is refused before anything is allocated, and so is a shard file over the size limit', async () => {
    const tiny = JSON.stringify({ kind: 'ideal-state.loop-shard', version: 2, specKey: read(1).specKey, spec: read(1).spec, shard: { index: 1, count: 4294967296 }, criterionIds: [], state: 'COMPLETE', iteration: 1, artifacts: [] });
    const { r, forgedPath } = await mergeWith(1, tiny);
    refused(r, forgedPath, 'shard.count', /Too big|less than or equal to 1024|<=1024/i);
    const big = path.join(dir, 'huge.json');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 65 * 1024 * 1024);
    const h = await cli(['merge', big, shardPaths()[1]!, '--workspace', workspace]);
    assert.equal(h.code, 2, h.err);
    assert.match(h.err, /huge\.json: \(file\): \d+ bytes, over the 64 MiB a shard file may have; give the file a shard wrote/);
  });

  it('a line break, separator or control character in glob, isc, criterionIds, file or runId is refused, and no PRD is written', async () => {
    const prds = path.join(workspace, '.ideal-state/prds');
    const prdCount = () => (fs.existsSync(prds) ? fs.readdirSync(prds).length : 0);
    const before = prdCount();
    const cases: [string, (s: Shard) => void][] = [
      ['spec.glob', (s) => (s.spec.glob = 'docs/*.md\n- [x] ISC-X-001: Injected | Verify: Read: README.md')],
      ['spec.isc', (s) => (s.spec.isc = 'test.loop-page\n## Ideal State Criteria')],
      ['criterionIds[1]', (s) => (s.criterionIds[1] = 'ISC-LOOP-002 |\n- [x] ISC-X-002: Injected')],
      ['criterionIds[0]', (s) => (s.criterionIds[0] = 'ISC-LOOP-001\u2028- [x] ISC-X-003: Injected')],
      ['artifacts[0].file', (s) => (s.artifacts[0]!.file = `${s.artifacts[0]!.file}\u001b[2J`)],
      ['artifacts[0].runId', (s) => (s.artifacts[0]!.runId = 'run-1\r\n- [x] ISC-X-004: Injected')],
    ];
    for (const [field, forge] of cases) {
      const s = read(1);
      forge(s);
      const { r, forgedPath } = await mergeWith(1, s);
      refused(r, forgedPath, field, /holds U\+[0-9A-F]{4} \(a line break or control character\)/);
    }
    assert.equal(prdCount(), before, 'no PRD written');
  });

  it('a version 1 shard file (no content hashes) is refused with what to do', async () => {
    const s = read(1) as Shard & { version: number };
    s.version = 1;
    const { r, forgedPath } = await mergeWith(1, s);
    refused(r, forgedPath, 'version', /has no content hashes/);
  });

  it('the shards in any order, honest: the same report, and the PRD written', async () => {
    const r = await cli(['merge', ...shardPaths().reverse(), '--workspace', workspace, '--json', '--prd']);
    assert.equal(r.code, 1, r.err);
    assert.deepEqual(JSON.parse(r.out).report, honest.report);
    assert.ok(fs.existsSync(path.join(workspace, JSON.parse(r.out).prd)));
  });
});
