import { parse, stringify } from 'yaml';
import { actionRepository } from './action-repository.cjs';
import { ScheduleSpec, type ListedSchedule } from './schedule';

/**
 * A schedule on GitHub Actions: `on.schedule` with the cron, the loop's shards as a matrix of
 * verify-only jobs, each running this product's action (action.yml) in its loop mode and
 * uploading its shard file, and a merge job where the action combines them into one report and
 * the loop PRD (as docs/loop.md's sharded workflow does by hand). The action is pinned at the
 * release of the command line that wrote the workflow, the ref form docs/ci.md uses, unless the
 * person names another (`--action`). The loop's
 * glob and template go through the workflow's `env` into the action's inputs, never into shell
 * text, so a glob with a quote or a `$(…)` in it is an argument, not a command. The schedule's
 * name in `env` is what `schedule list` reads back and what `started-by` records.
 */

export const WORKFLOW_FOLDER = '.github/workflows';
export const workflowFile = (name: string) => `${WORKFLOW_FOLDER}/ideal-state-${name}.yml`;

/**
 * The action the jobs run by default: this product's repository (package.json's `repository`,
 * else its own: action-repository.cjs, the rule docs/ci.md's pin is checked by) at the release
 * of the command line that writes the workflow. A problem string when package.json names a
 * repository that is not on GitHub.
 */
export function defaultActionRef(manifest: { version: string; repository?: unknown }): { ok: true; ref: string } | { ok: false; message: string } {
  const found = actionRepository(manifest);
  return found.ok ? { ok: true, ref: `${found.repository}@v${manifest.version}` } : found;
}

const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const REPO = /^[A-Za-z0-9._-]{1,100}$/;
/** A tag, branch or commit as git allows it (git-check-ref-format), in the characters a `uses:` line needs no quoting for. */
const REF = /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}$/;

/**
 * `--action OWNER/REPO@REF`: another copy of the action (a fork, a commit SHA). Checked here,
 * since it lands in a workflow that runs with the repository's token: no path, no expression, no
 * space or quote, nothing git would refuse as a ref.
 */
export function parseActionRef(text: string): { ok: true; ref: string } | { ok: false; message: string } {
  const example = 'e.g. my-org/ideal-state@v1.2.3 or my-org/ideal-state@<commit SHA>';
  const at = text.lastIndexOf('@');
  if (at < 0) return { ok: false, message: `--action "${text}" has no @REF; ${example}` };
  const [owner, repo, ...more] = text.slice(0, at).split('/');
  const ref = text.slice(at + 1);
  if (more.length > 0 || !owner || !repo || !OWNER.test(owner) || !REPO.test(repo) || repo === '.' || repo === '..') return { ok: false, message: `--action "${text}" is not OWNER/REPO@REF (a GitHub owner and repository name); ${example}` };
  if (!REF.test(ref) || ref.includes('..') || ref.includes('//') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) return { ok: false, message: `--action "${text}": "${ref}" is not a tag, branch or commit git allows (letters, digits, ".", "_", "-", "/"); ${example}` };
  return { ok: true, ref: text };
}

const ENV = { name: 'IDEAL_STATE_SCHEDULE', glob: 'IDEAL_STATE_LOOP_GLOB', isc: 'IDEAL_STATE_LOOP_ISC', shards: 'IDEAL_STATE_LOOP_SHARDS', effort: 'IDEAL_STATE_LOOP_EFFORT' } as const;

export interface WorkflowOptions {
  /** The action the jobs run, `OWNER/REPO@REF` (defaultActionRef, or `--action`). */
  readonly action: string;
}

/** The workflow file's text: a header comment, then the workflow. */
export function renderWorkflow(spec: ScheduleSpec, options: WorkflowOptions): string {
  const action = options.action;
  const startedBy = `schedule:\${{ env.${ENV.name} }}`;
  const setup = [{ uses: 'actions/checkout@v4' }, { uses: 'actions/setup-node@v4', with: { 'node-version': 22 } }];
  const workflow = {
    name: `Ideal State schedule ${spec.name}`,
    on: { schedule: [{ cron: spec.cron }], workflow_dispatch: null },
    permissions: { contents: 'read' },
    env: {
      [ENV.name]: spec.name,
      [ENV.glob]: spec.glob,
      [ENV.isc]: spec.isc,
      [ENV.shards]: String(spec.shards),
      ...(spec.effort ? { [ENV.effort]: spec.effort } : {}),
    },
    jobs: {
      shard: {
        name: 'Loop shard ${{ matrix.shard }}',
        'runs-on': 'ubuntu-latest',
        strategy: { 'fail-fast': false, matrix: { shard: Array.from({ length: spec.shards }, (_, i) => i + 1) } },
        steps: [
          ...setup,
          {
            name: 'Verify the shard',
            uses: action,
            with: {
              'loop-glob': `\${{ env.${ENV.glob} }}`,
              'loop-isc': `\${{ env.${ENV.isc} }}`,
              ...(spec.effort ? { 'loop-effort': `\${{ env.${ENV.effort} }}` } : {}),
              shard: `\${{ matrix.shard }}/\${{ env.${ENV.shards} }}`,
              'loop-out': 'shards/shard-${{ matrix.shard }}.json',
              'started-by': startedBy,
            },
          },
          // A shard with a failing artifact fails its job, and its file still goes to the merge.
          { uses: 'actions/upload-artifact@v4', if: 'always()', with: { name: 'loop-shard-${{ matrix.shard }}', path: 'shards/shard-${{ matrix.shard }}.json' } },
        ],
      },
      merge: {
        needs: 'shard',
        if: 'always()',
        'runs-on': 'ubuntu-latest',
        steps: [
          ...setup,
          { uses: 'actions/download-artifact@v4', with: { pattern: 'loop-shard-*', path: 'shards', 'merge-multiple': true } },
          { name: 'Merge the shards (fails when an artifact fails its criteria)', uses: action, with: { merge: 'shards', 'started-by': startedBy } },
          { uses: 'actions/upload-artifact@v4', if: 'always()', with: { name: 'loop-report', path: 'ideal-state-reports/loop-report.json\n.ideal-state/prds/loop-merged-*.md\n' } },
        ],
      },
    },
  };
  const header = [
    `# Written by \`ideal-state schedule add --ci github\`: the loop over ${oneLine(spec.glob)} against ${oneLine(spec.isc)},`,
    `# on the cron "${spec.cron}" (UTC), in ${spec.shards} shard${spec.shards === 1 ? '' : 's'}. \`ideal-state schedule list\` reads it back.`,
  ];
  return `${header.join('\n')}\n${stringify(workflow, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** A workflow file's schedule, when it is one `schedule add` wrote; a problem string when it is but is damaged. */
export function readWorkflowSchedule(file: string, text: string): ListedSchedule | string | undefined {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    return `${file}: not YAML (${(error as Error).message.split('\n')[0]})`;
  }
  const w = doc as { env?: Record<string, unknown>; on?: { schedule?: { cron?: unknown }[] }; jobs?: { shard?: { strategy?: { matrix?: { shard?: unknown[] } } } } } | null;
  const env = w?.env;
  if (!env || typeof env[ENV.name] !== 'string') return undefined;
  const spec = ScheduleSpec.safeParse({
    name: env[ENV.name],
    cron: w?.on?.schedule?.[0]?.cron,
    glob: env[ENV.glob],
    isc: env[ENV.isc],
    shards: Number(env[ENV.shards]),
    verifyOnly: true,
    ...(typeof env[ENV.effort] === 'string' ? { effort: env[ENV.effort] } : {}),
  });
  if (!spec.success) return `${file}: ${spec.error.issues.map((i) => `${i.path.join('.') || 'schedule'}: ${i.message}`).join('; ')}`;
  return { target: 'github', file, spec: spec.data };
}
