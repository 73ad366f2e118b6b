import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { parseCron } from '../../../../src/app/schedule/cron';
import { crontabLine, onCalendar, readCrontab, readSystemdTimer, systemdService, systemdTimer } from '../../../../src/app/schedule/local';
import { parseStartedBy, ScheduleSpec } from '../../../../src/app/schedule/schedule';
import { defaultActionRef, parseActionRef, readWorkflowSchedule, renderWorkflow } from '../../../../src/app/schedule/workflow';
import { renderLoopPrd } from '../../../../src/app/loop/loop-prd';
import { Store } from '../../../../src/store/store';
import { runCli } from '../../support/cli-helpers';
import { GITHUB_WORKFLOW_SUBSET } from './github-workflow-schema';
import { REPO_ROOT } from '../../support/repo-root';

const spec = (over: Partial<ScheduleSpec> = {}): ScheduleSpec => ScheduleSpec.parse({ name: 'docs-weekly', cron: '0 3 * * 1', glob: 'docs/**/*.md', isc: 'docs.page', shards: 3, ...over });
const validateWorkflow = new Ajv({ allErrors: true, strict: false }).compile(GITHUB_WORKFLOW_SUBSET);
const schemaErrors = (doc: unknown) => (validateWorkflow(doc) ? [] : (validateWorkflow.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));

describe('cron expressions', () => {
  it('reads the five fields with lists, ranges, steps and names', () => {
    const read = parseCron('*/15 9-17 1,15 JAN-MAR mon-fri');
    assert.ok(read.ok);
    assert.deepEqual(read.cron.fields[0]!.values, [0, 15, 30, 45]);
    assert.deepEqual(read.cron.fields[1]!.values, [9, 10, 11, 12, 13, 14, 15, 16, 17]);
    assert.deepEqual(read.cron.fields[3]!.values, [1, 2, 3]);
    assert.deepEqual(read.cron.fields[4]!.values, [1, 2, 3, 4, 5]);
    // 7 is Sunday, as 0.
    const sunday = parseCron('0 0 * * 7');
    assert.ok(sunday.ok);
    assert.deepEqual(sunday.cron.fields[4]!.values, [0]);
  });

  for (const [cron, says] of [
    ['0 3 * *', /has 4 fields; it needs 5/],
    ['0 3 * * 1 2', /has 6 fields/],
    ['60 3 * * 1', /minute field "60" has "60", which is not a number in 0-59/],
    ['0 24 * * 1', /hour field "24"/],
    ['0 3 0 * 1', /day of month field "0"/],
    ['0 3 * 13 1', /month field "13"/],
    ['0 3 * * 8', /day of week field "8"/],
    ['0 3 * * FUN', /day of week field "FUN"/],
    ['5-1 3 * * *', /runs backwards/],
    ['*/0 3 * * *', /step "0"/],
    ['0,,5 3 * * *', /empty list item/],
    ['@daily', /shorthands such as @daily are not taken/],
  ] as const) {
    it(`refuses "${cron}", saying which field`, () => {
      const read = parseCron(cron);
      assert.equal(read.ok, false);
      assert.match(read.ok ? '' : read.message, says);
    });
  }
});

describe('a schedule on GitHub Actions', () => {
  it('writes a workflow the workflow schema accepts, with the cron, the shards as a matrix and a merge job', () => {
    const text = renderWorkflow(spec(), { action: 'ideal-state/ideal-state@v1.2.3' });
    const doc = parse(text) as { on: { schedule: { cron: string }[] }; jobs: Record<string, { strategy?: { matrix: { shard: number[] } }; needs?: string; steps: { run?: string; uses?: string }[] }> };
    assert.deepEqual(schemaErrors(doc), []);
    assert.deepEqual(doc.on.schedule, [{ cron: '0 3 * * 1' }]);
    assert.ok(parseCron(doc.on.schedule[0]!.cron).ok, 'the cron written is valid');
    assert.deepEqual(doc.jobs.shard!.strategy!.matrix.shard, [1, 2, 3]);
    assert.equal(doc.jobs.merge!.needs, 'shard');
    // Both jobs run this product's action, pinned at the release that wrote the workflow, in its loop mode.
    type Step = { uses?: string; run?: string; with?: Record<string, string> };
    const ours = (job: string) => (doc.jobs[job]!.steps as Step[]).filter((s) => s.uses === 'ideal-state/ideal-state@v1.2.3');
    assert.equal(ours('shard').length, 1);
    assert.deepEqual(ours('shard')[0]!.with, { 'loop-glob': '${{ env.IDEAL_STATE_LOOP_GLOB }}', 'loop-isc': '${{ env.IDEAL_STATE_LOOP_ISC }}', shard: '${{ matrix.shard }}/${{ env.IDEAL_STATE_LOOP_SHARDS }}', 'loop-out': 'shards/shard-${{ matrix.shard }}.json', 'started-by': 'schedule:${{ env.IDEAL_STATE_SCHEDULE }}' });
    assert.deepEqual(ours('merge').map((s) => s.with), [{ merge: 'shards', 'started-by': 'schedule:${{ env.IDEAL_STATE_SCHEDULE }}' }]);
    // Every input the workflow gives is one the action declares.
    const action = parse(fs.readFileSync(path.join(REPO_ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown> };
    for (const s of [...ours('shard'), ...ours('merge')]) for (const k of Object.keys(s.with!)) assert.ok(k in action.inputs, `action.yml declares ${k}`);
    assert.doesNotMatch(text, /npx|IDEAL_STATE_CLI/, 'no job runs the command line by itself');
    assert.ok(Object.values(doc.jobs).every((j) => j.steps.every((s) => s.run === undefined)), 'no shell step');
    // No YAML aliases: every step is written out where it runs.
    assert.doesNotMatch(text, /[&*]a\d/);
  });

  it('the schema check fails on a broken workflow', () => {
    const good = parse(renderWorkflow(spec(), { action: 'ideal-state/ideal-state@v1.2.3' })) as Record<string, Record<string, Record<string, unknown>>>;
    const broken = (change: (w: typeof good) => void) => {
      const w = structuredClone(good);
      change(w);
      return schemaErrors(w);
    };
    assert.notDeepEqual(broken((w) => delete w.jobs!.shard!['runs-on']), []);
    assert.notDeepEqual(broken((w) => ((w.on!.schedule as unknown as unknown[])[0] = { crn: '0 3 * * 1' })), []);
    assert.notDeepEqual(broken((w) => ((w.jobs!.merge!.steps as unknown as Record<string, unknown>[])[0] = { uses: 'actions/checkout@v4', run: 'echo both' })), []);
    assert.notDeepEqual(broken((w) => (w.jobs!.shard!.stratgy = {})), []);
    assert.notDeepEqual(broken((w) => delete (w as Record<string, unknown>).jobs), []);
  });

  it('keeps the glob out of the shell: a quote or $(…) in it is an env value, read back as given', () => {
    const glob = `docs/it's/$(touch pwned)/*.md`;
    const text = renderWorkflow(spec({ glob }), { action: 'ideal-state/ideal-state@v1.2.3' });
    const doc = parse(text) as { env: Record<string, string>; jobs: Record<string, { steps: { run?: string }[] }> };
    assert.equal(doc.env.IDEAL_STATE_LOOP_GLOB, glob);
    for (const job of Object.values(doc.jobs)) for (const s of job.steps) assert.ok(!(s.run ?? '').includes('pwned'));
    const back = readWorkflowSchedule('w.yml', text);
    assert.ok(back && typeof back === 'object');
    assert.equal(back.spec.glob, glob);
  });

  it('runs the action of package.json\'s repository at the release that wrote it, or the product\'s own', () => {
    assert.deepEqual(defaultActionRef({ version: '1.2.3' }), { ok: true, ref: 'ideal-state/ideal-state@v1.2.3' });
    assert.deepEqual(defaultActionRef({ version: '1.2.3', repository: 'github:acme/fork' }), { ok: true, ref: 'acme/fork@v1.2.3' });
    assert.deepEqual(defaultActionRef({ version: '1.2.3', repository: { type: 'git', url: 'git+https://github.com/acme/fork.git' } }), { ok: true, ref: 'acme/fork@v1.2.3' });
    const gitlab = defaultActionRef({ version: '1.2.3', repository: 'https://gitlab.com/acme/fork' });
    assert.equal(gitlab.ok, false);
    assert.match(gitlab.ok ? '' : gitlab.message, /not a GitHub repository/);
  });

  it('takes another action as OWNER/REPO@REF and refuses anything else', () => {
    for (const good of ['acme/fork@v2.0.0', 'acme/ideal-state@0123456789abcdef0123456789abcdef01234567', 'my-org/ideal.state_x@release/2026-11']) assert.deepEqual(parseActionRef(good), { ok: true, ref: good });
    for (const [bad, says] of [
      ['acme/fork', /has no @REF/],
      ['acme@v1', /is not OWNER\/REPO@REF/],
      ['acme/fork/sub@v1', /is not OWNER\/REPO@REF/],
      ['-acme/fork@v1', /is not OWNER\/REPO@REF/],
      ['acme/..@v1', /is not OWNER\/REPO@REF/],
      ['acme/fork@${{ secrets.TOKEN }}', /is not a tag, branch or commit/],
      ['acme/fork@v1 && curl x', /is not a tag, branch or commit/],
      ['acme/fork@-v1', /is not a tag, branch or commit/],
      ['acme/fork@v1..v2', /is not a tag, branch or commit/],
      ['acme/fork@v1\nrun: x', /is not a tag, branch or commit/],
      ['acme/fork@', /is not a tag, branch or commit/],
    ] as const) {
      const r = parseActionRef(bad);
      assert.equal(r.ok, false, bad);
      assert.match(r.ok ? '' : r.message, says, bad);
    }
  });

  it('is read back from the workflow file, and a damaged one is named', () => {
    const back = readWorkflowSchedule('.github/workflows/ideal-state-docs-weekly.yml', renderWorkflow(spec({ effort: 'FAST' }), { action: 'ideal-state/ideal-state@v1.2.3' }));
    assert.ok(back && typeof back === 'object');
    assert.deepEqual(back.spec, spec({ effort: 'FAST' }));
    assert.equal(back.target, 'github');
    assert.equal(readWorkflowSchedule('ci.yml', 'on: push\njobs: {}\n'), undefined, 'a workflow of its own is not a schedule');
    const damaged = renderWorkflow(spec(), { action: 'ideal-state/ideal-state@v1.2.3' }).replace("cron: 0 3 * * 1", "cron: 0 3 * *");
    assert.match(String(readWorkflowSchedule('x.yml', damaged)), /x\.yml: cron: cron "0 3 \* \*" has 4 fields/);
  });
});

describe('a schedule on one machine', () => {
  const command = { node: '/usr/bin/node', cli: '/opt/ideal state/dist/cli.js', workspace: "/home/p/it's here", logFile: '/home/p/.local/share/ideal-state/schedules/x.log' };

  it('shows a crontab line that runs the loop with --started-by, and reads it back', () => {
    const s = spec({ name: 'nightly', cron: '30 2 * * *', glob: 'docs/100%/*.md', shards: 1, verifyOnly: false });
    const line = crontabLine(s, command);
    assert.match(line, /^30 2 \* \* \* mkdir -p \/home\/p\/\.local\/share\/ideal-state\/schedules && \/usr\/bin\/node '\/opt\/ideal state\/dist\/cli\.js' loop --workspace '\/home\/p\/it'\\''s here' /);
    assert.match(line, /--started-by schedule:nightly >> /);
    // An unescaped % ends a crontab command.
    assert.match(line, /docs\/100\\%\/\*\.md/);
    assert.doesNotMatch(line.replace(/\\%/g, ''), /%/);
    const back = readCrontab(`MAILTO=""\n${line}\n# 0 1 * * * old # ideal-state schedule old\n`);
    assert.equal(back.length, 1);
    assert.deepEqual(typeof back[0] === 'object' ? back[0].spec : back[0], s);
  });

  it('shows a systemd service and timer, read back from the timer', () => {
    const s = spec({ name: 'nightly', cron: '0 3 * * 1', shards: 1 });
    const service = systemdService(s, command);
    assert.match(service, /^ExecStart="\/usr\/bin\/node" "\/opt\/ideal state\/dist\/cli\.js" "loop" "--workspace" "\/home\/p\/it's here" .*"--started-by" "schedule:nightly"$/m);
    const timer = systemdTimer(s);
    assert.match(timer, /^OnCalendar=Mon \*-\*-\* 03:00:00$/m);
    assert.match(timer, /^Unit=ideal-state-nightly\.service$/m);
    const back = readSystemdTimer('t.timer', timer);
    assert.ok(back && typeof back === 'object');
    assert.deepEqual(back.spec, s);
  });

  it('turns a cron into systemd calendar events, two when both day fields are set (cron runs on either)', () => {
    const cal = (c: string) => {
      const r = parseCron(c);
      assert.ok(r.ok);
      return onCalendar(r.cron);
    };
    assert.deepEqual(cal('*/20 * * * *'), ['*-*-* *:00,20,40:00']);
    assert.deepEqual(cal('0 9 1 */6 *'), ['*-01,07-01 09:00:00']);
    assert.deepEqual(cal('0 9 1,15 * 5'), ['*-*-01,15 09:00:00', 'Fri *-*-* 09:00:00']);
  });
});

describe('who started a loop', () => {
  it('reads --started-by', () => {
    assert.deepEqual(parseStartedBy('schedule:docs-weekly'), { who: 'schedule', schedule: 'docs-weekly' });
    assert.deepEqual(parseStartedBy('person'), { who: 'person' });
    assert.equal(parseStartedBy('schedule:Bad Name'), undefined);
    assert.equal(parseStartedBy('cron'), undefined);
  });

  it('the loop PRD says it in its frontmatter and its LOG', () => {
    const now = '2026-11-29T03:00:00.000Z';
    const text = renderLoopPrd({
      loop: { id: 'loop-1', spec: { glob: 'docs/*.md', isc: 'docs.page', agents: 1, effort: 'FAST', maxIterations: 5, verifyOnly: true }, state: 'COMPLETE', iteration: 1, effort: 'FAST', criterionIds: [], log: [], createdAt: now, updatedAt: now, startedBy: { who: 'schedule', schedule: 'docs-weekly' } },
      artifacts: [],
      prdPath: '.ideal-state/prds/loop-1.md',
    });
    assert.match(text, /^started_by: schedule:docs-weekly$/m);
    assert.match(text.split('## LOG')[1]!, /Started by schedule docs-weekly on 2026-11-29\./);
  });
});

describe('ideal-state schedule (the command line)', function () {
  this.timeout(60_000);
  let workspace: string;
  let home: string;
  beforeEach(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-schedule-'));
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-schedule-home-'));
    fs.mkdirSync(path.join(workspace, 'docs'));
    fs.writeFileSync(path.join(workspace, 'docs', 'install.md'), '# Install\n\nRun the installer.\n');
  });
  afterEach(() => {
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(home, { recursive: true, force: true });
  });
  const env = () => ({ XDG_CONFIG_HOME: path.join(home, 'config'), HOME: home });

  it('add --ci github writes the workflow; list reads it back; a second add without --force is refused', async () => {
    const add = await runCli(['schedule', 'add', '--workspace', workspace, '--ci', 'github', '--cron', '0 3 * * 1', '--glob', 'docs/**/*.md', '--isc', 'docs.page', '--shards', '2'], { env: env() });
    assert.equal(add.code, 0, add.err);
    const file = path.join(workspace, '.github', 'workflows', 'ideal-state-docs-page.yml');
    assert.deepEqual(schemaErrors(parse(fs.readFileSync(file, 'utf8'))), []);
    const list = await runCli(['schedule', 'list', '--workspace', workspace, '--json'], { env: env() });
    assert.equal(list.code, 0, list.err);
    const listed = JSON.parse(list.out) as { schedules: { target: string; name: string; cron: string; glob: string; isc: string; shards: number }[] };
    assert.deepEqual(listed.schedules.filter((s) => s.target === 'github').map(({ name, cron, glob, isc, shards }) => ({ name, cron, glob, isc, shards })), [{ name: 'docs-page', cron: '0 3 * * 1', glob: 'docs/**/*.md', isc: 'docs.page', shards: 2 }]);
    const again = await runCli(['schedule', 'add', '--workspace', workspace, '--ci', 'github', '--cron', '0 4 * * 1', '--glob', 'docs/**/*.md', '--isc', 'docs.page'], { env: env() });
    assert.equal(again.code, 2);
    assert.match(again.err, /ideal-state-docs-page\.yml exists; give another --name, or --force/);
  });

  it('add --ci github --action OWNER/REPO@REF writes that action into both jobs; a bad one is refused and nothing is written', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const args = ['schedule', 'add', '--workspace', workspace, '--ci', 'github', '--cron', '0 3 * * 1', '--glob', 'docs/*.md', '--isc', 'docs.page'];
    const file = path.join(workspace, '.github', 'workflows', 'ideal-state-docs-page.yml');
    const uses = () => (parse(fs.readFileSync(file, 'utf8')) as { jobs: Record<string, { steps: { uses?: string }[] }> }).jobs;
    const ours = (jobs: ReturnType<typeof uses>) => Object.values(jobs).flatMap((j) => j.steps.map((s) => s.uses ?? '').filter((u) => !u.startsWith('actions/')));
    const plain = await runCli(args, { env: env() });
    assert.equal(plain.code, 0, plain.err);
    assert.deepEqual(ours(uses()), [`ideal-state/ideal-state@v${manifest.version}`, `ideal-state/ideal-state@v${manifest.version}`], 'the default: this release of the product\'s action');
    const fork = await runCli([...args, '--force', '--action', 'acme/fork@0123456789abcdef0123456789abcdef01234567'], { env: env() });
    assert.equal(fork.code, 0, fork.err);
    assert.match(fork.out, /running acme\/fork@0123456789abcdef/);
    assert.deepEqual(ours(uses()), ['acme/fork@0123456789abcdef0123456789abcdef01234567', 'acme/fork@0123456789abcdef0123456789abcdef01234567']);
    assert.deepEqual(schemaErrors(parse(fs.readFileSync(file, 'utf8'))), []);
    const before = fs.readFileSync(file, 'utf8');
    const bad = await runCli([...args, '--force', '--action', 'acme/fork@${{ github.token }}'], { env: env() });
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--action "acme\/fork@\$\{\{ github\.token \}\}": .* is not a tag, branch or commit/);
    assert.equal(fs.readFileSync(file, 'utf8'), before, 'nothing written');
    const local = await runCli(['schedule', 'add', '--workspace', workspace, '--local', '--cron', '0 3 * * 1', '--glob', 'docs/*.md', '--isc', 'docs.page', '--action', 'acme/fork@v1'], { env: env() });
    assert.equal(local.code, 2);
    assert.match(local.err, /--action is for --ci github/);
  });

  it('a bad cron or an unknown template is a usage error that says why, and writes nothing', async () => {
    const bad = await runCli(['schedule', 'add', '--workspace', workspace, '--ci', 'github', '--cron', '0 25 * * 1', '--glob', 'docs/*.md', '--isc', 'docs.page'], { env: env() });
    assert.equal(bad.code, 2);
    assert.match(bad.err, /the hour field "25" has "25", which is not a number in 0-23/);
    const unknown = await runCli(['schedule', 'add', '--workspace', workspace, '--ci', 'github', '--cron', '0 3 * * 1', '--glob', 'docs/*.md', '--isc', 'no.such'], { env: env() });
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /no ISC template "no\.such"/);
    assert.equal(fs.existsSync(path.join(workspace, '.github')), false);
  });

  it('--local shows the crontab line and the systemd pair and installs nothing; list reads an installed timer back', async () => {
    const local = await runCli(['schedule', 'add', '--workspace', workspace, '--local', '--cron', '15 1 * * *', '--glob', 'docs/*.md', '--isc', 'docs.page', '--name', 'nightly'], { env: env() });
    assert.equal(local.code, 0, local.err);
    assert.match(local.out, /Nothing was installed/);
    assert.match(local.out, /^15 1 \* \* \* .* loop --workspace .* --started-by schedule:nightly >> .* # ideal-state schedule nightly$/m);
    const units = path.join(home, 'config', 'systemd', 'user');
    assert.equal(fs.existsSync(units), false, 'no unit file was written');
    // The person installs the timer as shown: list reads it back.
    const timer = local.out.split(`# ${path.join(units, 'ideal-state-nightly.timer')}\n`)[1]!;
    fs.mkdirSync(units, { recursive: true });
    fs.writeFileSync(path.join(units, 'ideal-state-nightly.timer'), timer);
    const list = await runCli(['schedule', 'list', '--workspace', workspace, '--json'], { env: env() });
    const listed = JSON.parse(list.out) as { schedules: { target: string; name: string; cron: string }[] };
    assert.deepEqual(listed.schedules.filter((s) => s.target === 'systemd').map((s) => [s.name, s.cron]), [['nightly', '15 1 * * *']]);
  });

  it('a loop started with --started-by schedule:NAME is recorded as such in the store and its PRD', async () => {
    const store = path.join(home, 'store.sqlite');
    const run = await runCli(['loop', '--workspace', workspace, '--glob', 'docs/*.md', '--isc', 'docs.page', '--verify-only', '--started-by', 'schedule:nightly', '--store', store, '--json'], { env: env() });
    const out = JSON.parse(run.out) as { loopId: string; prd: string };
    const opened = await Store.open({ file: store });
    try {
      assert.deepEqual(opened.loops.get(out.loopId)?.startedBy, { who: 'schedule', schedule: 'nightly' });
    } finally {
      opened.close();
    }
    assert.match(fs.readFileSync(path.join(workspace, out.prd), 'utf8'), /^started_by: schedule:nightly$/m);
    const refused = await runCli(['loop', '--workspace', workspace, '--glob', 'docs/*.md', '--isc', 'docs.page', '--started-by', 'cron'], { env: env() });
    assert.equal(refused.code, 2);
    assert.match(refused.err, /--started-by takes "person" or "schedule:NAME"/);
  });
});
