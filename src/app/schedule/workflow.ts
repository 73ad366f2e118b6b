import { parse, stringify } from 'yaml';
import { ScheduleSpec, type ListedSchedule } from './schedule';

/**
 * A schedule on GitHub Actions: `on.schedule` with the cron, the loop's shards as a matrix of
 * verify-only jobs, each running this product's action (action.yml) in its loop mode and
 * uploading its shard file, and a merge job where the action combines them into one report and
 * the loop PRD (as docs/loop.md's sharded workflow does by hand). The action is pinned at the
 * release of the command line that wrote the workflow, the ref form docs/ci.md uses. The loop's
 * glob and template go through the workflow's `env` into the action's inputs, never into shell
 * text, so a glob with a quote or a `$(…)` in it is an argument, not a command. The schedule's
 * name in `env` is what `schedule list` reads back and what `started-by` records.
 */

export const WORKFLOW_FOLDER = '.github/workflows';
export const workflowFile = (name: string) => `${WORKFLOW_FOLDER}/ideal-state-${name}.yml`;

/** This product's repository on GitHub, where action.yml is: `uses: <it>@v<version>`. */
export const ACTION_REPOSITORY = 'ideal-state/ideal-state';

const ENV = { name: 'IDEAL_STATE_SCHEDULE', glob: 'IDEAL_STATE_LOOP_GLOB', isc: 'IDEAL_STATE_LOOP_ISC', shards: 'IDEAL_STATE_LOOP_SHARDS', effort: 'IDEAL_STATE_LOOP_EFFORT' } as const;

export interface WorkflowOptions {
  /** The release of the action the jobs run (`uses: …@v<version>`), the command line's that wrote it. */
  readonly version: string;
}

/** The workflow file's text: a header comment, then the workflow. */
export function renderWorkflow(spec: ScheduleSpec, options: WorkflowOptions): string {
  const action = `${ACTION_REPOSITORY}@v${options.version}`;
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
