import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { denyAll } from '../agent/approvals';
import { NodeWorkspace } from '../agent/node-workspace';
import { resolveEffort } from '../app/effort';
import { artifactVariables, LoopEngine, LoopInputError, parseShard, shardFile, type LoopResult } from '../app/loop';
import { formatProblem } from '../model/data-file';
import { loadDefinitions } from '../model/definitions';
import { MemoryLogger } from '../model/log';
import type { EffortLevel, LoopState } from '../model';
import { SETTINGS } from '../model/settings';
import { BudgetLedger } from '../llm/budgets';
import { LlmConfig } from '../llm/config';
import { ScriptedModel } from '../llm/providers/scripted';
import type { ResolvedModels } from '../llm/resolve';
import { ModelRouter } from '../llm/router';
import { nodeTextFiles } from '../node/node-text-files';
import { confineGlob } from '../verify/confine';
import { defaultCliStoreFile, Store } from '../store/store';
import { loopMerge } from './loop-merge';
import { lessonsOf, models } from './run';
import { printStoreWarnings, STORE_BUSY_EXIT_CODE, storeBusyMessage, storeWarningsJson } from './store-warnings';
import { cliWorkspaceConfig } from './trust';
import { hashFiles, writeFileAtomically } from './loop-files';
import { parseStartedBy } from '../app/schedule/schedule';
import { loopEnded, withScheduleFailure } from './notify-sources';

type Output = { out: (s: string) => void; err: (s: string) => void; signal?: AbortSignal };

/** Exit codes of a loop's end states (2 is a usage error, 5 a busy store). */
export const LOOP_EXIT_CODES: Record<LoopState, number> = { COMPLETE: 0, FAILED: 1, BUDGET_EXHAUSTED: 3, CANCELLED: 130, RUNNING: 1 };

export const LOOP_USAGE = `  loop --glob GLOB --isc TYPE [--agents N] [--effort LEVEL] [--max-iterations N] [--verify-only]
                                         the Algorithm over every file GLOB matches, against ISC template TYPE
  loop --shard I/N --out FILE ...        only the I-th of N deterministic shards; its results into FILE
  loop --resume LOOP_ID                  go on with a stopped loop (acknowledged results are kept)
  loop merge FILE... [--out REPORT] [--prd]
                                         combine shard files into one report (and the loop PRD)

Loop options:
  --agents N          agents working at once (at most the effort level's parallelism; default that)
  --max-iterations N  iterations before the loop ends FAILED (default 5); effort decays after the third
  --budget SECONDS    the loop's time budget (default: the level's budget per round of agents)
  --verify-only       verify, never work (what a CI shard does)
  --started-by schedule:NAME
                      record the loop as started by that schedule (what a written schedule passes)
  --provider scripted --script FILE
                      the script is one artifact's sub-run, replayed for each (\${file} and \${name} substituted)
  Exit codes: 0 COMPLETE, 1 FAILED, 2 usage error, 3 BUDGET_EXHAUSTED, 5 store busy, 130 CANCELLED.`;

const OPTIONS = {
  workspace: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean', default: false },
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
  model: { type: 'string' },
  provider: { type: 'string' },
  script: { type: 'string' },
  'trust-workspace': { type: 'boolean', default: false },
  'started-by': { type: 'string' },
} as const;

const usageError = (io: Output, message: string): number => {
  io.err(`ideal-state loop: ${message}\n\n${LOOP_USAGE}`);
  return 2;
};

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new LoopInputError(`--${name} takes a whole number of 1 or more, not "${text}"`);
  return n;
}

/** `ideal-state loop …` and `ideal-state loop merge …`; a scheduled loop that cannot start is schedule.failed. */
export async function loopCommand(argv: string[], io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return withScheduleFailure(argv, io, (said) => runLoop(argv, said, env));
}

async function runLoop(argv: string[], io: Output, env: NodeJS.ProcessEnv): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    return usageError(io, (error as Error).message);
  }
  const { values: v, positionals } = parsed;
  const workspace = path.resolve(v.workspace ?? process.cwd());
  const startedBy = v['started-by'] === undefined ? undefined : parseStartedBy(v['started-by']);
  if (v['started-by'] !== undefined && !startedBy) return usageError(io, `--started-by takes "person" or "schedule:NAME", not "${v['started-by']}"`);
  if (positionals[0] === 'merge') return loopMerge(positionals.slice(1), { workspace, json: v.json === true, ...(v.out ? { out: v.out } : {}), prd: v.prd === true, ...(startedBy ? { startedBy } : {}) }, io);
  if (positionals.length > 0) return usageError(io, `unknown argument "${positionals[0]}"`);
  if (!v.resume && (!v.glob || !v.isc)) return usageError(io, 'give --glob GLOB and --isc TYPE (or --resume LOOP_ID)');
  if (v.shard && !v.out) return usageError(io, '--shard I/N needs --out FILE for the shard\'s results (loop merge combines them)');
  const approve = new Set((v.approve ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  for (const a of approve) if (a !== 'edits' && a !== 'commands') return usageError(io, `--approve takes "edits", "commands" or "edits,commands", not "${a}"`);

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
    return usageError(io, (error as Error).message);
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
    if (v.resume && !stored) return usageError(io, `no loop ${v.resume} in ${store.location}`);
    const isc = stored?.spec.isc ?? spec.isc;
    const definition = definitions.isc.get(isc)?.definition;
    if (!definition) return usageError(io, `no ISC template "${isc}"; the templates are ${definitions.isc.list().map((r) => r.definition.artifactType).join(', ')} (ideal-state isc list)`);
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
      return usageError(io, error instanceof Error ? error.message : String(error));
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
      if (error instanceof LoopInputError) return usageError(io, error.message);
      throw error;
    }
    if (v.out) await writeFileAtomically(path.resolve(v.out), `${JSON.stringify(shardFile(result.loop, result.artifacts, await hashFiles(workspace, result.artifacts.map((a) => a.file))), null, 2)}\n`);
    print(result, v.json === true, io, storeWarningsJson(store), v.out);
    await loopEnded(result, startedBy, workspace, io.err);
    return LOOP_EXIT_CODES[result.state];
  } finally {
    store.close();
  }
}

/** Models that route nowhere: every call to the router says why (a verify-only loop without a model). */
function noModels(reason: string): ResolvedModels {
  const config = LlmConfig.parse({ version: 1, providers: [{ id: 'none', kind: 'scripted', script: 'none' }], models: [{ id: 'none', provider: 'none', model: 'none' }], routing: { default: 'none' } });
  return { config, slots: new Map([['none', { ok: false, id: 'none', modelClass: 'local', reason }]]), source: 'environment' };
}

/**
 * `--provider scripted`: the script is one artifact's sub-run (its manager, specialist and
 * validator answers), read again for each sub-run with `${file}` and `${name}` put in, so
 * parallel agents never take each other's steps.
 */
async function scriptPerArtifact(file: string, resolved: ResolvedModels): Promise<(artifact: string) => ModelRouter> {
  const text = await fs.readFile(file, 'utf8');
  ScriptedModel.fromText(file, text); // a broken script is a usage error before anything runs
  const id = [...resolved.slots.keys()][0]!;
  return (artifact) => {
    const vars = artifactVariables(artifact);
    const model = ScriptedModel.fromText(file, text.replace(/\$\{(file|name)\}/g, (_, k: 'file' | 'name') => vars[k]));
    return new ModelRouter({ ...resolved, slots: new Map([[id, { ok: true, model }]]) });
  };
}

function print(result: LoopResult, json: boolean, io: Output, warnings: ReturnType<typeof storeWarningsJson>, out: string | undefined): void {
  const { loop } = result;
  if (json) {
    io.out(JSON.stringify({ loopId: loop.id, state: loop.state, reason: loop.reason ?? null, iteration: loop.iteration, effort: loop.effort, total: loop.total, passing: loop.passing, unmet: result.unmet, prd: loop.prdPath ?? null, out: out ?? null, report: result.report, warnings }));
    return;
  }
  io.out(`${loop.state}${loop.reason ? `: ${loop.reason}` : ''}`);
  io.out(`loop ${loop.id}: ${loop.passing}/${loop.total} artifacts passing${loop.prdPath ? `, PRD ${loop.prdPath}` : ''}${out ? `, results in ${out}` : ''}`);
  for (const f of result.unmet.slice(0, 50)) io.out(`  unmet: ${f}`);
  if (result.unmet.length > 50) io.out(`  … and ${result.unmet.length - 50} more`);
}
