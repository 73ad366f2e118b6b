import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { crontabLine, readCrontab, readSystemdTimer, systemdService, systemdTimer, unitName } from '../../app/schedule/local';
import { defaultScheduleName, ScheduleSpec, type ListedSchedule } from '../../app/schedule/schedule';
import { defaultActionRef, parseActionRef, readWorkflowSchedule, renderWorkflow, WORKFLOW_FOLDER, workflowFile } from '../../app/schedule/workflow';
import { loadDefinitions } from '../../model/definitions';
import { SETTINGS } from '../../model/settings';
import { nodeTextFiles } from '../../node/node-text-files';
import { cliDataFolder } from '../../store/store-paths';
import { writeFileAtomically } from '../loop/files';
import { defineCommand } from '../shared/command';
import { FOLDER_OPTIONS } from '../shared/options';
import { SCHEDULE_USAGE } from '../shared/usage';

type Output = { out: (s: string) => void; err: (s: string) => void };

const OPTIONS = {
  ...FOLDER_OPTIONS,
  cron: { type: 'string' },
  glob: { type: 'string' },
  isc: { type: 'string' },
  ci: { type: 'string' },
  local: { type: 'boolean', default: false },
  shards: { type: 'string' },
  name: { type: 'string' },
  effort: { type: 'string' },
  work: { type: 'boolean', default: false },
  force: { type: 'boolean', default: false },
  action: { type: 'string' },
} as const;

const SCHEDULE = defineCommand({ name: 'ideal-state schedule', usage: SCHEDULE_USAGE, options: OPTIONS });

/** `ideal-state schedule add …` and `ideal-state schedule list`. */
export async function scheduleCommand(argv: string[], io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = SCHEDULE.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values: v, positionals } = parsed;
  const workspace = path.resolve(v.workspace ?? process.cwd());
  if (positionals[0] === 'list' && positionals.length === 1) return list(workspace, v.json === true, io, env);
  if (positionals[0] !== 'add' || positionals.length > 1) return SCHEDULE.usageError(io, positionals.length === 0 ? 'say add or list' : `unknown argument "${positionals.join(' ')}"`);
  if (!v.cron || !v.glob || !v.isc) return SCHEDULE.usageError(io, 'schedule add needs --cron CRON, --glob GLOB and --isc TYPE');
  if ((v.ci === undefined) === (v.local !== true)) return SCHEDULE.usageError(io, 'say where it runs: --ci github or --local (one of them)');
  if (v.ci !== undefined && v.ci !== 'github') return SCHEDULE.usageError(io, `--ci takes "github" (GitHub Actions), not "${v.ci}"`);
  if (v.shards !== undefined && v.ci === undefined) return SCHEDULE.usageError(io, '--shards is for --ci github (the matrix); a local schedule runs one loop');
  if (v.work && v.ci !== undefined) return SCHEDULE.usageError(io, '--work is for --local: a CI shard verifies (it has no model and no one to approve edits)');
  if (v.action !== undefined && v.ci === undefined) return SCHEDULE.usageError(io, '--action is for --ci github (the action the workflow runs)');
  const action = v.action === undefined ? undefined : parseActionRef(v.action);
  if (action && !action.ok) return SCHEDULE.usageError(io, action.message);
  const shards = v.shards === undefined ? 1 : Number(v.shards);
  const spec = ScheduleSpec.safeParse({ name: v.name ?? defaultScheduleName(v.isc), cron: v.cron, glob: v.glob, isc: v.isc, shards, verifyOnly: !v.work, ...(v.effort ? { effort: v.effort } : {}) });
  if (!spec.success) return SCHEDULE.usageError(io, spec.error.issues.map((i) => (i.path[0] === 'shards' ? `--shards takes a whole number from 1 to 256, not "${v.shards}"` : i.path[0] === 'cron' ? i.message : `--${String(i.path[0])}: ${i.message}`)).join('; '));
  const known = await knownTemplates(workspace);
  if (!known.includes(spec.data.isc)) return SCHEDULE.usageError(io, `no ISC template "${spec.data.isc}"; the templates are ${known.join(', ')} (ideal-state isc list)`);
  return v.local ? showLocal(spec.data, workspace, io, env) : writeWorkflow(spec.data, workspace, v.force === true, action?.ok ? action.ref : undefined, io);
}

async function knownTemplates(workspace: string): Promise<string[]> {
  const definitions = await loadDefinitions(nodeTextFiles, {
    shippedIscDir: path.join(__dirname, '..', 'isc-definitions'),
    workspaceIscDir: path.join(workspace, SETTINGS.iscDefinitionsFolder.default),
    effortOverrideFile: path.join(workspace, SETTINGS.effortLevelsFile.default),
  });
  return definitions.isc.list().map((r) => r.definition.artifactType);
}

async function writeWorkflow(spec: ScheduleSpec, workspace: string, force: boolean, given: string | undefined, io: Output): Promise<number> {
  const action = given === undefined ? defaultActionRef(await ownManifest()) : { ok: true as const, ref: given };
  if (!action.ok) {
    io.err(`ideal-state schedule: ${action.message}; name the action with --action OWNER/REPO@REF`);
    return 2;
  }
  const rel = workflowFile(spec.name);
  const file = path.join(workspace, rel);
  const existing = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (existing !== undefined && !force) {
    io.err(`ideal-state schedule: ${rel} exists; give another --name, or --force to replace it`);
    return 2;
  }
  await writeFileAtomically(file, renderWorkflow(spec, { action: action.ref }));
  io.out(`wrote ${rel}: the loop over ${spec.glob} against ${spec.isc} on "${spec.cron}" (UTC), ${spec.shards} shard${spec.shards === 1 ? '' : 's'} and a merge job, running ${action.ref}`);
  io.out('Commit it to the default branch: GitHub runs scheduled workflows from there.');
  return 0;
}

/** The command line's own package.json: its version and the repository its action is in. */
async function ownManifest(): Promise<{ version: string; repository?: unknown }> {
  const text = await fs.readFile(path.join(__dirname, '..', 'package.json'), 'utf8');
  return JSON.parse(text) as { version: string; repository?: unknown };
}

function showLocal(spec: ScheduleSpec, workspace: string, io: Output, env: NodeJS.ProcessEnv): number {
  const command = { node: process.execPath, cli: path.join(__dirname, 'cli.js'), workspace, logFile: path.join(cliDataFolder(env), 'schedules', `${spec.name}.log`) };
  const unit = unitName(spec.name);
  const units = systemdUserFolder(env);
  io.out(`A schedule for this machine (its local time). Nothing was installed: add one of these yourself.

1. crontab: run \`crontab -e\` and add this line (make the folder ${path.dirname(command.logFile)} first):

${crontabLine(spec, command)}

2. systemd (user): save the two files below in ${units}, then run
   systemctl --user daemon-reload && systemctl --user enable --now ${unit}.timer

# ${path.join(units, `${unit}.service`)}
${systemdService(spec, command)}
# ${path.join(units, `${unit}.timer`)}
${systemdTimer(spec)}`);
  return 0;
}

function systemdUserFolder(env: NodeJS.ProcessEnv): string {
  const config = env.XDG_CONFIG_HOME && path.isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : path.join(os.homedir(), '.config');
  return path.join(config, 'systemd', 'user');
}

async function list(workspace: string, json: boolean, io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  const found: (ListedSchedule | string | undefined)[] = [];
  const folder = path.join(workspace, WORKFLOW_FOLDER);
  for (const name of (await fs.readdir(folder).catch(() => [] as string[])).sort()) {
    if (!/\.ya?ml$/.test(name)) continue;
    const rel = `${WORKFLOW_FOLDER}/${name}`;
    found.push(readWorkflowSchedule(rel, await fs.readFile(path.join(folder, name), 'utf8')));
  }
  const units = systemdUserFolder(env);
  for (const name of (await fs.readdir(units).catch(() => [] as string[])).sort()) {
    if (name.startsWith('ideal-state-') && name.endsWith('.timer')) found.push(readSystemdTimer(path.join(units, name), await fs.readFile(path.join(units, name), 'utf8')));
  }
  // The user's crontab, when there is a crontab program; a missing one (or no crontab) lists nothing.
  const crontab = spawnSync('crontab', ['-l'], { encoding: 'utf8', timeout: 5_000 });
  if (crontab && crontab.status === 0) found.push(...readCrontab(crontab.stdout));
  const schedules = found.filter((f): f is ListedSchedule => typeof f === 'object');
  const problems = found.filter((f): f is string => typeof f === 'string');
  for (const p of problems) io.err(`ideal-state schedule list: ${p}`);
  if (json) io.out(JSON.stringify({ schedules: schedules.map((s) => ({ target: s.target, file: s.file, ...s.spec })), problems }));
  else if (schedules.length === 0) io.out('no schedules (ideal-state schedule add writes one)');
  else for (const s of schedules) io.out(`${s.spec.name.padEnd(20)} ${s.target.padEnd(8)} "${s.spec.cron}"  loop ${s.spec.glob} against ${s.spec.isc}${s.target === 'github' ? `, ${s.spec.shards} shard${s.spec.shards === 1 ? '' : 's'}` : ''}  (${s.file})`);
  return problems.length > 0 ? 1 : 0;
}
