import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { loadCapabilities, WORKSPACE_CAPABILITIES_FILE } from '../../algorithm/capabilities';
import { loadRoles, ROLE_IDS, WORKSPACE_ROLES_DIR } from '../../algorithm/roles';
import { formatProblem, type DataFileProblem } from '../../model/data-file';
import { loadEffortTable, resolveEffortLevel } from '../../model/effort-table';
import { MemoryLogger } from '../../model/log';
import type { EffortLevel } from '../../model';
import { SETTINGS } from '../../model/settings';
import { checkModels, type CheckReport } from '../../llm/check-model';
import { formatCheckReport } from '../../llm/check-model-text';
import { isCancellation } from '../../model/errors';
import type { ResolvedModels } from '../../llm/resolve';
import { defaultCliStoreFile, Store } from '../../store/store';
import { printStoreWarnings, storeWarningsJson } from '../../app/store-warnings';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { lessonsOf, models } from '../shared/models';
import { cliWorkspaceConfig } from '../shared/workspace-config';
import type { WorkspaceConfig } from '../../node/workspace-config';
import { MODELS_USAGE } from '../shared/usage';
import { MODEL_OPTIONS, WORKSPACE_OPTIONS } from '../shared/options';


const OPTIONS = {
  ...WORKSPACE_OPTIONS,
  ...MODEL_OPTIONS,
  effort: { type: 'string' },
} as const;

const MODELS = defineCommand({ name: 'ideal-state', usage: MODELS_USAGE, options: OPTIONS });

/** `ideal-state models check …`: Check Model on the command line. `argv` follows `models`. */
export async function modelsCommand(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = MODELS.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values: v, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'check') return MODELS.usageError(io, 'models takes one command, check');
  const workspace = path.resolve(v.workspace ?? process.cwd());
  const effort = loadEffortTable(await readOverride(workspace, SETTINGS.effortLevelsFile.default));
  warn(effort.problems, io);
  const level = resolveEffortLevel(v.effort ?? 'STANDARD', effort.table);
  if (!level.ok) {
    io.err(`ideal-state: ${level.message}`);
    return 2;
  }
  const store = await Store.open({ file: v.store ? path.resolve(v.store) : defaultCliStoreFile(workspace, env) });
  const controller = new AbortController();
  const cancel = () => controller.abort();
  process.once('SIGINT', cancel);
  io.signal?.addEventListener('abort', cancel, { once: true });
  try {
    printStoreWarnings(store, io.err);
    const logger = new MemoryLogger();
    const config = cliWorkspaceConfig(workspace, env, v['trust-workspace'] === true, io);
    let resolved: ResolvedModels;
    try {
      // What the check's calls teach (a refused parameter) is kept in the store for later runs, as a run keeps it.
      resolved = await models(v, workspace, env, config, store.readOnly ? { lessons: store.modelLessons.list(), logger } : lessonsOf(store, logger, undefined));
    } catch (error) {
      io.err(`ideal-state: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
    const report = await check(resolved, level.level, config, { ...io, signal: controller.signal }, logger, v.json === true);
    if (!report) return 130;
    if (v.json) io.out(JSON.stringify({ ...report, warnings: storeWarningsJson(store) }));
    else for (const line of formatCheckReport(report)) io.out(line);
    return report.works ? 0 : 1;
  } finally {
    process.removeListener('SIGINT', cancel);
    io.signal?.removeEventListener('abort', cancel);
    store.close();
  }
}

/** The check with the workspace's capabilities (each role's tier) and roles (each role's temperature), as a run reads them. */
async function check(resolved: ResolvedModels, level: EffortLevel, config: WorkspaceConfig, io: CliIo, logger: MemoryLogger, json: boolean): Promise<CheckReport | undefined> {
  const capabilities = loadCapabilities(await config.read(WORKSPACE_CAPABILITIES_FILE));
  const roleFiles = (await Promise.all(ROLE_IDS.map((id) => config.read(`${WORKSPACE_ROLES_DIR}/${id}.yaml`)))).filter((f) => f !== undefined);
  const roles = loadRoles(roleFiles);
  warn([...capabilities.problems, ...roles.problems], io);
  try {
    return await checkModels(resolved, {
      level,
      tierFor: (role, at) => capabilities.capabilities.levels[at]?.models[role],
      temperatureOf: (role) => roles.roles[role].policy.temperature,
      ...(io.signal ? { signal: io.signal } : {}),
      logger,
      ...(json ? {} : { onProgress: (message: string) => io.err(`checking ${message}`) }),
    });
  } catch (error) {
    if (!isCancellation(error)) throw error;
    io.err('ideal-state: Check Model was cancelled');
    return undefined;
  }
}

async function readOverride(workspace: string, rel: string): Promise<{ file: string; text: string } | undefined> {
  const text = await fs.readFile(path.join(workspace, rel), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : { file: rel, text };
}

function warn(problems: readonly DataFileProblem[], io: CliIo): void {
  for (const p of problems) io.err(`warning: ${formatProblem(p)}`);
}
