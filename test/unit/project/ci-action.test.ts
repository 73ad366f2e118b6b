import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Ajv from 'ajv';
import { parse } from 'yaml';
import { BUILT_CLI } from '../support/cli-helpers';
import { badPage, goodPage, LOOP_TEMPLATE } from '../support/loop-helpers';

/**
 * The CI action (action.yml, action/verify.mjs) run as the runner runs it: its inputs as
 * INPUT_<ID> variables, GITHUB_STEP_SUMMARY and GITHUB_OUTPUT naming files it appends to,
 * GITHUB_ACTION_PATH the action's folder, the working directory the workspace
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#inputs,
 * https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands).
 */
const REPO = path.resolve(path.dirname(BUILT_CLI), '..');
const ENTRY = path.join(REPO, 'action', 'verify.mjs');
const PRD = '.ideal-state/prds/PRD-20261128-ci.md';
const prdText = (criterion: string) => ['---', 'prd: true', 'id: PRD-20261128-ci', 'status: IN_PROGRESS', 'effort_level: INSTANT', '---', '', '# CI', '', '## Ideal State Criteria', criterion, '', '## LOG', ''].join('\n');
const CRITICAL = '- [ ] ISC-1: The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md';

/**
 * The action metadata the runner requires, from its documentation
 * (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax): `name`,
 * `description` and `runs` are required; each input needs a `description`, its id a letter or `_`
 * then letters, digits, `-` or `_`; a composite action's outputs each need `value`; its steps each
 * either `run` with `shell`, or `uses`; `branding` from the documented icons and colours. Written
 * here because the JSON schema SchemaStore keeps for action.yml is not installed on this machine
 * (the copy the code search holds predates composite and node20 actions).
 */
const ID = '^[_a-zA-Z][a-zA-Z0-9_-]*$';
const ACTION_METADATA = {
  type: 'object',
  required: ['name', 'description', 'runs'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1 },
    author: { type: 'string' },
    description: { type: 'string', minLength: 1 },
    branding: { type: 'object', additionalProperties: false, properties: { icon: { type: 'string' }, color: { enum: ['white', 'black', 'yellow', 'blue', 'green', 'orange', 'red', 'purple', 'gray-dark'] } } },
    inputs: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { [ID]: { type: 'object', required: ['description'], additionalProperties: false, properties: { description: { type: 'string' }, required: { type: 'boolean' }, default: { type: 'string' }, deprecationMessage: { type: 'string' } } } },
    },
    outputs: {
      type: 'object',
      additionalProperties: false,
      patternProperties: { [ID]: { type: 'object', required: ['description', 'value'], additionalProperties: false, properties: { description: { type: 'string' }, value: { type: 'string' } } } },
    },
    runs: {
      type: 'object',
      required: ['using', 'steps'],
      additionalProperties: false,
      properties: {
        using: { const: 'composite' },
        steps: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            additionalProperties: false,
            oneOf: [{ required: ['run', 'shell'], not: { required: ['uses'] } }, { required: ['uses'], not: { required: ['run'] } }],
            properties: {
              id: { type: 'string', pattern: ID },
              name: { type: 'string' },
              if: { type: 'string' },
              run: { type: 'string' },
              shell: { type: 'string' },
              uses: { type: 'string', pattern: '^[^/@\\s]+/[^@\\s]+@\\S+$' },
              with: { type: 'object' },
              env: { type: 'object', additionalProperties: { type: 'string' } },
              'working-directory': { type: 'string' },
              'continue-on-error': { type: ['string', 'boolean'] },
            },
          },
        },
      },
    },
  },
};

interface ActionYml {
  inputs: Record<string, { required?: boolean; default?: string }>;
  runs: { steps: Array<{ id?: string; env?: Record<string, string> }> };
}

function workspace(criterion = CRITICAL): string {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'ideal-state-ci-action-'));
  fs.mkdirSync(path.join(ws, path.dirname(PRD)), { recursive: true });
  fs.writeFileSync(path.join(ws, PRD), prdText(criterion));
  return ws;
}

/** The entry run as the runner runs it; no INPUT_* of this process's own leaks in. */
function runAction(ws: string, inputs: Record<string, string>) {
  const summary = path.join(ws, '..', `${path.basename(ws)}-summary.md`);
  const outputs = path.join(ws, '..', `${path.basename(ws)}-output.txt`);
  fs.writeFileSync(summary, '');
  fs.writeFileSync(outputs, '');
  const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('INPUT_') && !k.startsWith('GITHUB_')));
  for (const [id, value] of Object.entries(inputs)) env[`INPUT_${id.toUpperCase()}`] = value;
  // The state and data folders are the test's own, never the user's (the loop mode opens a store).
  Object.assign(env, { GITHUB_STEP_SUMMARY: summary, GITHUB_OUTPUT: outputs, GITHUB_ACTION_PATH: REPO, GITHUB_WORKSPACE: ws, GITHUB_ACTIONS: 'true', CI: 'true', IDEAL_STATE_STATE_DIR: path.join(ws, '..', `${path.basename(ws)}-state`), XDG_DATA_HOME: path.join(ws, '..', `${path.basename(ws)}-data`) });
  const r = spawnSync(process.execPath, [ENTRY], { cwd: ws, env, encoding: 'utf8' });
  const parsed = Object.fromEntries(fs.readFileSync(outputs, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, summary: fs.readFileSync(summary, 'utf8'), outputs: parsed as Record<string, string> };
}

const DEFAULTS = { reports: 'markdown,sarif,junit', 'reports-dir': 'ideal-state-reports', 'upload-sarif': 'true', 'run-commands': 'false', 'allow-criteria-changes': 'false', 'criteria-from': '', 'working-directory': '.', 'loop-glob': '', 'loop-isc': '', 'loop-effort': '', shard: '', 'loop-out': '', merge: '', 'started-by': '' };

describe('the CI action: action.yml and its entry run as the runner runs it', function () {
  this.timeout(60_000);
  const metadata = parse(fs.readFileSync(path.join(REPO, 'action.yml'), 'utf8')) as ActionYml;

  it('its metadata holds the runner’s rules, and every input reaches the entry under its INPUT_ name', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(ACTION_METADATA);
    assert.ok(validate(metadata), JSON.stringify(validate.errors, null, 2));
    const step = metadata.runs.steps.find((s) => s.id === 'verify')!;
    const entry = fs.readFileSync(ENTRY, 'utf8') + fs.readFileSync(path.join(REPO, 'action', 'loop.mjs'), 'utf8');
    for (const id of Object.keys(metadata.inputs)) {
      assert.equal(step.env?.[`INPUT_${id.toUpperCase()}`], `\${{ inputs.${id} }}`, `input ${id} passed to the entry`);
      if (id !== 'working-directory') assert.match(entry, new RegExp(`(input|truthy)\\('${id}'\\)`), `the entry reads ${id}`);
    }
    for (const [id, spec] of Object.entries(metadata.inputs)) if (id !== 'prd') assert.equal(spec.default, DEFAULTS[id as keyof typeof DEFAULTS], `${id}'s default`);
  });

  it('a failing CRITICAL criterion: the job summary, the reports as outputs, an error line, and the job fails', () => {
    const ws = workspace();
    const r = runAction(ws, { ...DEFAULTS, prd: PRD });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.summary, /Ideal State: not done/);
    assert.match(r.summary, /\| \*\*ISC-1\*\* The workspace has a CHANGELOG\.md \| ❌ FAIL \| CRITICAL \|/);
    assert.equal(r.outputs.passed, 'false');
    const sarif = JSON.parse(fs.readFileSync(r.outputs['sarif-file']!, 'utf8')) as { version: string; runs: Array<{ results: Array<{ ruleId: string; level: string }> }> };
    assert.equal(sarif.version, '2.1.0');
    assert.deepEqual(sarif.runs[0]!.results.map((x) => [x.ruleId, x.level]), [['ISC-1', 'error']]);
    assert.ok(path.isAbsolute(r.outputs['sarif-file']!), 'upload-sarif reads the path from the workspace root, not the working directory');
    assert.match(fs.readFileSync(r.outputs['junit-file']!, 'utf8'), /<testcase[^>]*name="ISC-1/);
    assert.match(r.stdout, /^::error title=Ideal State::\.ideal-state\/prds\/PRD-20261128-ci\.md: a CRITICAL criterion does not pass/m);
  });

  it('every CRITICAL criterion passing: the summary says done, passed=true, exit 0', () => {
    const ws = workspace();
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
    const r = runAction(ws, { ...DEFAULTS, prd: PRD });
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(r.outputs.passed, 'true');
    assert.match(r.summary, /^### ✅ Ideal State: every CRITICAL criterion passes/m);
    assert.match(r.summary, /\| \*\*ISC-1\*\* The workspace has a CHANGELOG\.md \| ✅ PASS \| CRITICAL \|/);
    assert.doesNotMatch(r.stdout, /::error/);
  });

  it('a criterion changed since criteria-from fails the job though it passes; allow-criteria-changes lets it through', () => {
    const ws = workspace();
    const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: ws, encoding: 'utf8' }).status, 0, `git ${args.join(' ')}`);
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=ci@example.com', '-c', 'user.name=ci', 'commit', '-q', '--allow-empty', '-m', 'empty');
    git('add', '.');
    git('-c', 'user.email=ci@example.com', '-c', 'user.name=ci', 'commit', '-q', '-m', 'criteria');
    // The branch weakens ISC-1 to NICE, and makes it pass: only the change can fail the job.
    fs.writeFileSync(path.join(ws, PRD), prdText('- [ ] ISC-1: [NICE] The workspace has a CHANGELOG.md | Verify: Read: CHANGELOG.md'));
    fs.writeFileSync(path.join(ws, 'CHANGELOG.md'), '# Changelog\n');
    const r = runAction(ws, { ...DEFAULTS, prd: PRD, 'criteria-from': 'main' });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.summary, /changed, needs review/);
    assert.match(r.stdout, /a criterion changed since main/);
    const allowed = runAction(ws, { ...DEFAULTS, prd: PRD, 'criteria-from': 'main', 'allow-criteria-changes': 'true' });
    assert.equal(allowed.code, 0, allowed.stdout + allowed.stderr);
  });

  it('loop mode: each shard verifies its part, the merge combines them; the summary says the state and the job fails unless COMPLETE', () => {
    const ws = workspace();
    fs.mkdirSync(path.join(ws, 'docs'));
    // The loop tests' template: each page holds the lines "done" and "footer", a heading of its name, no TODO.
    fs.mkdirSync(path.join(ws, '.ideal-state', 'isc'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.ideal-state', 'isc', 'test.loop-page.yaml'), JSON.stringify(LOOP_TEMPLATE));
    for (const p of ['alpha', 'beta', 'gamma', 'delta']) fs.writeFileSync(path.join(ws, 'docs', `${p}.md`), goodPage(p));
    const loop = { ...DEFAULTS, 'loop-glob': 'docs/*.md', 'loop-isc': 'test.loop-page', 'started-by': 'schedule:nightly' };
    const shard = (i: number) => runAction(ws, { ...loop, shard: `${i}/2`, 'loop-out': `shards/shard-${i}.json` });
    const passing = [shard(1), shard(2)];
    for (const r of passing) {
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.equal(r.outputs.state, 'COMPLETE');
      assert.match(r.summary, /^### ✅ Ideal State loop: COMPLETE/m);
      assert.equal(fs.existsSync(r.outputs['loop-file']!), true);
    }
    const merged = runAction(ws, { ...DEFAULTS, merge: 'shards', 'started-by': 'schedule:nightly' });
    assert.equal(merged.code, 0, merged.stdout + merged.stderr);
    assert.match(merged.summary, /COMPLETE[\s\S]*2 shards merged: 4\/4 artifacts passing/);
    assert.match(fs.readFileSync(merged.outputs['prd-file']!, 'utf8'), /^started_by: schedule:nightly$/m, 'the loop PRD records the schedule that started it');

    // A page is left unfinished: its shard is FAILED, its job fails naming it, and so does the merge.
    fs.writeFileSync(path.join(ws, 'docs', 'gamma.md'), badPage('gamma'));
    const after = [shard(1), shard(2)];
    const failed = after.find((r) => r.code !== 0)!;
    assert.ok(failed, 'one shard fails');
    assert.equal(failed.code, 1, failed.stdout + failed.stderr);
    assert.equal(failed.outputs.state, 'FAILED');
    assert.equal(failed.outputs.passed, 'false');
    assert.match(failed.summary, /^### ❌ Ideal State loop: FAILED[\s\S]*\| docs\/gamma\.md \|/m);
    assert.match(failed.stdout, /^::error title=Ideal State::the loop over shard \d\/2 of docs\/\*\.md is FAILED, not COMPLETE/m);
    const mergedAfter = runAction(ws, { ...DEFAULTS, merge: 'shards' });
    assert.equal(mergedAfter.code, 1, mergedAfter.stdout + mergedAfter.stderr);
    assert.match(mergedAfter.summary, /FAILED[\s\S]*3\/4 artifacts passing[\s\S]*docs\/gamma\.md/);
  });

  it('loop mode refuses bad input with one error line, exit 2', () => {
    const ws = workspace();
    assert.match(runAction(ws, { ...DEFAULTS, 'loop-glob': 'docs/*.md' }).stdout, /^::error title=Ideal State::loop-isc is empty/m);
    const shard = runAction(ws, { ...DEFAULTS, 'loop-glob': 'docs/*.md', 'loop-isc': 'x', shard: 'two' });
    assert.equal(shard.code, 2);
    assert.match(shard.stdout, /shard is "two": write I\/N/);
    const merge = runAction(ws, { ...DEFAULTS, merge: 'nowhere' });
    assert.equal(merge.code, 2);
    assert.match(merge.stdout, /merge: .*nowhere does not exist/);
  });

  it('bad input is one error line and exit 2, before anything runs', () => {
    const ws = workspace();
    assert.match(runAction(ws, { ...DEFAULTS, prd: '' }).stdout, /^::error title=Ideal State::the prd input is empty/m);
    assert.equal(runAction(ws, { ...DEFAULTS, prd: 'nope.md' }).code, 2);
    const format = runAction(ws, { ...DEFAULTS, prd: PRD, reports: 'markdown,html' });
    assert.equal(format.code, 2);
    assert.match(format.stdout, /reports: "html" is not one of markdown, sarif, junit/);
    assert.equal(runAction(ws, { ...DEFAULTS, prd: PRD, 'upload-sarif': 'yes' }).code, 2);
    assert.equal(fs.existsSync(path.join(ws, 'ideal-state-reports', 'ideal-state.md')), false, 'nothing verified');
  });
});
