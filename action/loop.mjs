// The CI action's loop mode (action.yml with `loop-glob`, or `merge`): one verify-only shard of
// a loop (`ideal-state loop --shard I/N --out FILE`), or the merge of the shard files a folder
// holds (`ideal-state loop merge FILE… --out REPORT --prd`). What the schedule workflow
// `ideal-state schedule add --ci github` writes runs through here. A CI job has no agent to work
// the artifacts, so a loop here only verifies. The loop's state goes to the job summary and the
// step outputs; the job fails unless the loop is COMPLETE (the command line's exit code, as is).
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

/** The merge folder's shard files, sorted (no shell here to expand `shards/*.json`). */
function shardFiles(dir, fail) {
  if (!existsSync(dir)) fail(2, `merge: ${dir} does not exist: name the folder the shard files were downloaded to`);
  const files = readdirSync(dir).filter((f) => f.endsWith('.json')).sort().map((f) => join(dir, f));
  if (files.length === 0) fail(2, `merge: ${dir} holds no .json shard file: did a shard job upload its loop-out file?`);
  return files;
}

/** Markdown's table and emphasis characters in a path, shown as themselves. */
const md = (s) => String(s).replace(/([\\`*_[\]|<>])/g, '\\$1');

function summaryOf(what, result) {
  const state = result.state ?? 'unknown';
  const report = result.report ?? {};
  const passing = report.passing ?? result.passing ?? 0;
  const total = report.total ?? result.total ?? 0;
  const failing = report.failing ?? result.unmet ?? [];
  const lines = [`### ${state === 'COMPLETE' ? '✅' : '❌'} Ideal State loop: ${state}`, '', `${what}: ${passing}/${total} artifacts passing.`];
  if (failing.length > 0) {
    lines.push('', '| failing artifact |', '| --- |', ...failing.slice(0, 100).map((f) => `| ${md(f)} |`));
    if (failing.length > 100) lines.push('', `… and ${failing.length - 100} more (in the report file).`);
  }
  return `${lines.join('\n')}\n`;
}

export function loopMode({ input, fail, output, cli, workspace }) {
  const dir = resolve(workspace, input('reports-dir') || 'ideal-state-reports');
  mkdirSync(dir, { recursive: true });
  const startedBy = input('started-by');
  const tail = startedBy ? ['--started-by', startedBy] : [];
  let what;
  let args;
  let file;
  if (input('merge')) {
    if (input('loop-glob') || input('shard')) fail(2, 'merge combines the shard files: give it alone, without loop-glob or shard');
    const files = shardFiles(resolve(workspace, input('merge')), fail);
    file = join(dir, 'loop-report.json');
    what = `${files.length} shard${files.length === 1 ? '' : 's'} merged`;
    args = ['loop', 'merge', ...files.map((f) => relative(workspace, f) || f), '--out', file, '--prd', '--json', ...tail];
  } else {
    const isc = input('loop-isc');
    if (!isc) fail(2, 'loop-isc is empty: name the ISC template each artifact is held to (e.g. docs.page)');
    const shard = input('shard');
    if (shard && !/^\d+\/\d+$/.test(shard)) fail(2, `shard is "${shard}": write I/N, e.g. 2/4`);
    file = resolve(workspace, input('loop-out') || join(dir, `loop-shard-${shard ? shard.split('/')[0] : 'all'}.json`));
    what = shard ? `shard ${shard} of ${input('loop-glob')}` : input('loop-glob');
    const effort = input('loop-effort');
    args = ['loop', '--glob', input('loop-glob'), '--isc', isc, ...(effort ? ['--effort', effort] : []), '--verify-only', ...(shard ? ['--shard', shard] : []), '--out', file, '--json', ...tail];
  }
  process.stdout.write(`Ideal State: ${cli.said} ${args.join(' ')}\n`);
  // Standard output is the loop's JSON result; what it says along the way goes to the log.
  const run = spawnSync(cli.program, [...cli.args, ...args], { cwd: workspace, stdio: ['ignore', 'pipe', 'inherit'], env: process.env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error) fail(2, `the command line did not start (${run.error.message})`);
  let result;
  try {
    result = JSON.parse(run.stdout.trim().split('\n').pop() ?? '');
  } catch {
    fail(run.status || 2, `the loop did not run (exit ${run.status ?? run.signal}): its output above says why`);
  }
  if (result.error) fail(run.status || 2, `the loop did not run: ${result.error.message}`);
  const summary = process.env.GITHUB_STEP_SUMMARY;
  if (summary) appendFileSync(summary, summaryOf(what, result));
  output('state', String(result.state));
  output('passed', String(run.status === 0 && result.state === 'COMPLETE'));
  if (existsSync(file)) output(input('merge') ? 'report-file' : 'loop-file', file);
  if (typeof result.prd === 'string' && result.prd) output('prd-file', resolve(workspace, result.prd));
  if (run.status !== 0 || result.state !== 'COMPLETE') fail(run.status || 1, `the loop over ${what} is ${result.state}, not COMPLETE: the job summary lists the failing artifacts`);
  return 0;
}
