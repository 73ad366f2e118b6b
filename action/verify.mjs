// The CI action's entry (action.yml): runs `ideal-state verify` on the PRD the workflow names,
// appends its Markdown report to the job summary, says its results as step outputs, and exits
// non-zero when a CRITICAL criterion fails or a criterion changed since `criteria-from` (the
// command line's exit 1), or on bad input (exit 2), which fails the job.
//
// Plain Node with no dependency and no build, as the runner starts it. What it reads and writes
// is the runner's documented protocol:
// - inputs as INPUT_<ID IN UPPER CASE> environment variables, hyphens kept
//   (https://docs.github.com/en/actions/reference/workflows-and-actions/metadata-syntax#inputs);
// - the job summary, Markdown appended to the file GITHUB_STEP_SUMMARY names
//   (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#adding-a-job-summary);
// - outputs, `name=value` lines appended to the file GITHUB_OUTPUT names
//   (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#setting-an-output-parameter);
// - errors as `::error title=…::message` lines on standard output
//   (https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#setting-an-error-message).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const FORMATS = ['markdown', 'sarif', 'junit'];
const EXTENSIONS = { markdown: 'md', sarif: 'sarif', junit: 'xml' };

/** An input as the runner sets it; surrounding whitespace is not part of a value. */
function input(id) {
  return (process.env[`INPUT_${id.toUpperCase()}`] ?? '').trim();
}

function truthy(id) {
  const value = input(id).toLowerCase();
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  fail(2, `input ${id} is "${input(id)}": write true or false`);
}

/** A workflow command's data: `%`, CR and LF escaped, as the runner's own toolkit escapes them. */
function escapeData(text) {
  return String(text).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function fail(code, message) {
  process.stdout.write(`::error title=Ideal State::${escapeData(message)}\n`);
  process.exit(code);
}

function output(name, value) {
  const file = process.env.GITHUB_OUTPUT;
  if (!file) return;
  if (/[\r\n]/.test(value)) fail(2, `output ${name} holds a line break`);
  appendFileSync(file, `${name}=${value}\n`);
}

/**
 * The command line to run: the bundle beside this action when the action's folder was built
 * (`npm run build`: this repository's own CI, or a release that ships `dist/`), else the
 * published package of the action's own version through npx.
 */
function commandLine() {
  const root = process.env.GITHUB_ACTION_PATH || resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const bundled = join(root, 'dist', 'cli.js');
  if (existsSync(bundled)) return { program: process.execPath, args: [bundled], said: bundled };
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return { program: 'npx', args: ['--yes', `ideal-state@${version}`], said: `npx ideal-state@${version}` };
}

// Loop mode: a shard of a loop, or the merge of its shards (action/loop.mjs).
if (input('loop-glob') || input('merge')) {
  const { loopMode } = await import('./loop.mjs');
  process.exit(loopMode({ input, fail, output, cli: commandLine(), workspace: process.cwd() }));
}

const prd = input('prd');
if (!prd) fail(2, 'the prd input is empty: name the PRD to verify (e.g. prd: .ideal-state/prds/PRD-20261122-release.md), or loop-glob for a loop, or merge for its shards');
const workspace = process.cwd();
if (!existsSync(resolve(workspace, prd))) fail(2, `${prd} does not exist in ${workspace}: the prd input is relative to the working directory`);

const formats = [...new Set(input('reports').split(',').map((f) => f.trim().toLowerCase()).filter(Boolean))];
for (const f of formats) if (!FORMATS.includes(f)) fail(2, `reports: "${f}" is not one of ${FORMATS.join(', ')}`);
const uploadSarif = truthy('upload-sarif');
// The summary is the action's default output, and code scanning needs its file.
if (!formats.includes('markdown')) formats.unshift('markdown');
if (uploadSarif && !formats.includes('sarif')) formats.push('sarif');

const dir = resolve(workspace, input('reports-dir') || 'ideal-state-reports');
mkdirSync(dir, { recursive: true });
const files = Object.fromEntries(formats.map((f) => [f, join(dir, `ideal-state.${EXTENSIONS[f]}`)]));

const cli = commandLine();
const args = [...cli.args, 'verify', prd, '--no-store', ...formats.flatMap((f) => ['--report', `${f}=${files[f]}`])];
const criteriaFrom = input('criteria-from');
if (criteriaFrom) args.push('--criteria-from', criteriaFrom);
if (truthy('allow-criteria-changes')) args.push('--allow-criteria-changes');
if (truthy('run-commands')) args.push('--yes');

process.stdout.write(`Ideal State: ${cli.said} ${args.slice(cli.args.length).join(' ')}\n`);
const run = spawnSync(cli.program, args, { cwd: workspace, stdio: 'inherit', env: process.env });
if (run.error) fail(2, `the command line did not start (${run.error.message})`);

const summary = process.env.GITHUB_STEP_SUMMARY;
if (summary && existsSync(files.markdown)) appendFileSync(summary, `${readFileSync(files.markdown, 'utf8').trimEnd()}\n`);
output('passed', String(run.status === 0));
for (const f of formats) if (existsSync(files[f])) output(`${f}-file`, isAbsolute(files[f]) ? files[f] : resolve(files[f]));

if (run.status === 1) fail(1, `${prd}: ${criteriaFrom ? `a CRITICAL criterion does not pass, or a criterion changed since ${criteriaFrom}` : 'a CRITICAL criterion does not pass'}: the job summary has each one`);
if (run.status !== 0) fail(run.status ?? 2, `${prd}: the verification did not run (exit ${run.status ?? run.signal}): its output above says why`);
