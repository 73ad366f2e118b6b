import * as path from 'node:path';
import { denyAll } from '../../agent/approvals';
import { NodeWorkspace } from '../../agent/node-workspace';
import { resolveEffort } from '../../app/effort';
import { LoopEngine, LoopInputError, parseShard, shardFile, type LoopResult } from '../../app/loop';
import { printStoreWarnings, STORE_BUSY_EXIT_CODE, storeBusyMessage, storeWarningsJson } from '../../app/store-warnings';
import { BudgetLedger } from '../../llm/budgets';
import type { ResolvedModels } from '../../llm/resolve';
import { ModelRouter } from '../../llm/router';
import type { EffortLevel, LoopState } from '../../model';
import { formatProblem } from '../../model/data-file';
import { loadDefinitions } from '../../model/definitions';
import { MemoryLogger } from '../../model/log';
import { SETTINGS } from '../../model/settings';
import { nodeTextFiles } from '../../node/node-text-files';
import { defaultCliStoreFile, Store } from '../../store/store';
import { confineGlob } from '../../verify/confine';
import { hashFiles, writeFileAtomically } from '../loop/files';
import { loopMerge } from '../loop/merge';
import { noModels, scriptPerArtifact } from '../loop/models';
import { reportLoop } from '../loop/report';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';
import { lessonsOf, models } from '../shared/models';
import { cliWorkspaceConfig } from '../shared/workspace-config';
import { LOOP_USAGE } from '../shared/usage';
import { MODEL_OPTIONS, WORKSPACE_OPTIONS } from '../shared/options';
import { parseStartedBy } from '../../app/schedule/schedule';
import { loopEnded, withScheduleFailure } from '../shared/notify-sources';

/** Exit codes of a loop's end states (2 is a usage error, 5 a busy store). */
export const LOOP_EXIT_CODES: Record<LoopState, number> = { COMPLETE: 0, FAILED: 1, BUDGET_EXHAUSTED: 3, CANCELLED: 130, RUNNING: 1 };


const OPTIONS = {
  ...WORKSPACE_OPTIONS,
  ...MODEL_OPTIONS,
  glob: { type: 'string' },
  isc: { type: 'string' },
  agents: { type: 'string' },
  effort: { type: 'string' },
  'max-iterations': { type: 'string' },
  budget: { type: 'string' },
  'verify-only': { type: 'boolean', default: false },
  shard: { type: 'string' },
  out: { type: 'string' },
  prd: { type: 'boolean', default: false },
  resume: { type: 'string' },
  approve: { type: 'string' },
  'started-by': { type: 'string' },
} as const;

const LOOP = defineCommand({ name: 'ideal-state loop', usage: LOOP_USAGE, options: OPTIONS });

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new LoopInputError(`--${name} takes a whole number of 1 or more, not "${text}"`);
  return n;
}

/** `ideal-state loop …` and `ideal-state loop merge …`; a scheduled loop that cannot start is schedule.failed. */
export async function loopCommand(argv: string[], io: CliIo, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return withScheduleFailure(argv, io, (said) => runLoop(argv, { ...io, ...said }, env));
}

async function runLoop(argv: string[], io: CliIo, env: NodeJS.ProcessEnv): Promise<number> {
  const parsed = LOOP.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values: v, positionals } = parsed;
  const workspace = path.resolve(v.workspace ?? process.cwd());
  const startedBy = v['started-by'] === undefined ? undefined : parseStartedBy(v['started-by']);
  if (v['started-by'] !== undefined && !startedBy) return LOOP.usageError(io, `--started-by takes "person" or "schedule:NAME", not "${v['started-by']}"`);
  if (positionals[0] === 'merge') return loopMerge(positionals.slice(1), { workspace, json: v.json === true, ...(v.out ? { out: v.out } : {}), prd: v.prd === true, ...(startedBy ? { startedBy } : {}) }, io);
  if (positionals.length > 0) return LOOP.usageError(io, `unknown argument "${positionals[0]}"`);
  if (!v.resume && (!v.glob || !v.isc)) return LOOP.usageError(io, 'give --glob GLOB and --isc TYPE (or --resume LOOP_ID)');
  if (v.shard && !v.out) return LOOP.usageError(io, '--shard I/N needs --out FILE for the shard\'s results (loop merge combines them)');
  const approve = new Set((v.approve ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  for (const a of approve) if (a !== 'edits' && a !== 'commands') return LOOP.usageError(io, `--approve takes "edits", "commands" or "edits,commands", not "${a}"`);

  const definitions = await loadDefinitions(nodeTextFiles, {
    shippedIscDir: path.join(__dirname, '..', 'isc-definitions'),
    workspaceIscDir: path.join(workspace, SETTINGS.iscDefinitionsFolder.default),
    effortOverrideFile: path.join(workspace, SETTINGS.effortLevelsFile.default),
  });
  for (const p of definitions.problems) io.err(`warning: ${formatProblem(p)}`);
  const table = definitions.effort.table;

  let level: EffortLevel;
  let spec;
  try {
    const chosen = resolveEffort(v.effort, table);
    if (!chosen.ok) throw new LoopInputError(`--effort: ${chosen.message}`);
    level = chosen.level as EffortLevel;
    const glob = v.glob === undefined ? { ok: true as const } : confineGlob(v.glob);
    if (!glob.ok) throw new LoopInputError(`--glob: ${glob.reason}`);
    spec = {
      glob: v.glob ?? '',
      isc: v.isc ?? '',
      agents: positiveInt('agents', v.agents, table.levels[level].parallelism),
      effort: level,
      maxIterations: positiveInt('max-iterations', v['max-iterations'], 5),
      verifyOnly: v['verify-only'] === true,
      ...(v.shard ? { shard: parseShard(v.shard) } : {}),
      ...(v.budget !== undefined ? { budgetSeconds: positiveInt('budget', v.budget, 1) } : {}),
    };
  } catch (error) {
    return LOOP.usageError(io, (error as Error).message);
  }

  const storeFile = v.store ? path.resolve(v.store) : defaultCliStoreFile(workspace, env);
  const store = await Store.open({ file: storeFile });
  try {
    printStoreWarnings(store, io.err, { skipReadOnly: true });
    if (store.readOnly) {
      io.err(storeBusyMessage(store, 'Nothing was run.'));
      return STORE_BUSY_EXIT_CODE;
    }
    const stored = v.resume ? store.loops.get(v.resume) : undefined;
    if (v.resume && !stored) return LOOP.usageError(io, `no loop ${v.resume} in ${store.location}`);
    const isc = stored?.spec.isc ?? spec.isc;
    const definition = definitions.isc.get(isc)?.definition;
    if (!definition) return LOOP.usageError(io, `no ISC template "${isc}"; the templates are ${definitions.isc.list().map((r) => r.definition.artifactType).join(', ')} (ideal-state isc list)`);
    if (stored) level = stored.effort;

    const logger = new MemoryLogger();
    const config = cliWorkspaceConfig(workspace, env, v['trust-workspace'] === true, io);
    let resolved: ResolvedModels;
    let perArtifact: ((file: string) => ModelRouter) | undefined;
    try {
      resolved = await models(v, workspace, env, config, lessonsOf(store, logger, v.json === true ? undefined : io)).catch((error: unknown) => {
        // Verifying needs no model but for CUSTOM criteria, which are then UNKNOWN (and said so).
        if (!(spec.verifyOnly && v.provider === undefined)) throw error;
        io.err(`ideal-state loop: ${error instanceof Error ? error.message : String(error)}; verifying without one (CUSTOM criteria are UNKNOWN)`);
        return noModels(String(error instanceof Error ? error.message : error));
      });
      if (v.provider === 'scripted') perArtifact = await scriptPerArtifact(path.resolve(v.script!), resolved);
    } catch (error) {
      return LOOP.usageError(io, error instanceof Error ? error.message : String(error));
    }
    const router = new ModelRouter(resolved, { logger, budget: BudgetLedger.forLevel(level, resolved.config.budgets?.[level], { prices: resolved.catalogue, logger }) });
    const engine = new LoopEngine({
      run: {
        files: new NodeWorkspace(workspace),
        store,
        models: router,
        effort: table,
        approver: denyAll,
        trusted: true,
        autoApproveEdits: approve.has('edits'),
        allowCommands: approve.has('commands') ? ['*'] : [],
        readOverride: (rel) => config.read(rel),
        logger,
        learning: false,
      },
      definition,
      ...(perArtifact ? { modelsFor: perArtifact } : {}),
      onLog: (line) => (v.json ? undefined : io.err(line)),
      ...(startedBy ? { startedBy } : {}),
    });
    const signal = io.signal ?? new AbortController().signal;
    let result: LoopResult;
    try {
      result = v.resume ? await engine.resume(v.resume, signal) : await engine.start(spec, signal);
    } catch (error) {
      if (error instanceof LoopInputError) return LOOP.usageError(io, error.message);
      throw error;
    }
    if (v.out) await writeFileAtomically(path.resolve(v.out), `${JSON.stringify(shardFile(result.loop, result.artifacts, await hashFiles(workspace, result.artifacts.map((a) => a.file))), null, 2)}\n`);
    reportLoop(result, v.json === true, io, storeWarningsJson(store), v.out);
    await loopEnded(result, startedBy, workspace, io.err);
    return LOOP_EXIT_CODES[result.state];
  } finally {
    store.close();
  }
}
