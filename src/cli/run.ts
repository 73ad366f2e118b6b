import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import * as readline from 'node:readline/promises';
import { parseArgs } from 'node:util';
import { denyAll, type ApprovalAnswer, type Approver } from '../agent/approvals';
import { runEnded, withApprovalNotice } from './notify-sources';
import { exportRunBundle } from '../agent/bundle';
import { undoRunChanges } from '../agent/checkpoint';
import { NodeWorkspace } from '../agent/node-workspace';
import { StoreRunStorage } from '../algorithm/store-run-storage';
import { nodeAlgorithm } from '../app/node-run';
import { productVersion } from './ratings';
import { classifyEffort } from '../algorithm/effort-classifier';
import type { RunResult } from '../algorithm/engine';
import { criteriaFromPrd } from '../algorithm/prd-sync';
import { formatProblem } from '../model/data-file';
import { loadDefinitions } from '../model/definitions';
import { resolveEffortLevel } from '../model/effort-table';
import { MemoryLogger } from '../model/log';
import type { EffortLevel, EffortTable, RunState } from '../model';
import { SETTINGS } from '../model/settings';
import { BudgetLedger } from '../llm/budgets';
import { describeLesson } from '../llm/adapt';
import { LlmConfig, parseLlmConfig } from '../llm/config';
import { resolveModels, type ResolvedModels, type ResolveOptions } from '../llm/resolve';
import { ModelRouter } from '../llm/router';
import { runUsage, usageLine, type RunUsage } from '../llm/usage';
import { nodeTextFiles } from '../node/node-text-files';
import { toCoreCriterion } from '../prd/to-core';
import { defaultCliStoreFile, Store } from '../store/store';
import { printStoreWarnings, STORE_BUSY_EXIT_CODE, storeBusyMessage, storeWarningsJson } from './store-warnings';
import type { WorkspaceConfig } from '../node/workspace-config';
import { cliWorkspaceConfig, trustCommandFor } from './trust';

type Output = { out: (s: string) => void; err: (s: string) => void };

/** The exit code of each exit state (README "Runs from the command line"). 2 is a usage error. */
export const EXIT_CODES: Record<RunState, number> = {
  COMPLETE: 0,
  FAILED: 1,
  BUDGET_EXHAUSTED: 3,
  BLOCKED: 4,
  CANCELLED: 130,
  PENDING: 1,
  RUNNING: 1,
  NEEDS_APPROVAL: 4,
};

export const RUN_USAGE = `  run "REQUEST" [--effort LEVEL|AUTO]   run The Algorithm on a request in the workspace
  run --prd FILE [--effort LEVEL]        run it on a PRD: its criteria are the spec
  run --resume RUN_ID                    continue a run from its last committed step
  bundle RUN_ID --out DIR                export a run bundle (manifest, artifacts, PRD, reports, events)
  undo RUN_ID                            put back every file the run changed (its PRD too), as it was before

Run options:
  --approve edits,commands   approve the agent's edits and/or commands without asking (never a change
                             to configuration such as .vscode or .ideal-state: asked each time)
  --model M                  model name (or configured model id)
  --provider P               openai | anthropic | scripted (with --script FILE, labelled scripted)
  --trust-workspace          use the workspace's models file, capabilities, phase graph and roles for this
                             invocation without \`ideal-state trust\` (a models file still names only
                             OPENAI_API_KEY, ANTHROPIC_API_KEY or IDEAL_STATE_<NAME>_KEY)
  Exit codes: 0 COMPLETE, 1 FAILED, 2 usage error, 3 BUDGET_EXHAUSTED, 4 BLOCKED, 5 store busy (another
  process is writing the store; nothing was run), 130 CANCELLED.`;

const OPTIONS = {
  workspace: { type: 'string' },
  store: { type: 'string' },
  json: { type: 'boolean', default: false },
  prd: { type: 'string' },
  effort: { type: 'string' },
  approve: { type: 'string' },
  model: { type: 'string' },
  provider: { type: 'string' },
  script: { type: 'string' },
  resume: { type: 'string' },
  out: { type: 'string' },
  'trust-workspace': { type: 'boolean', default: false },
} as const;

/** `ideal-state run …` and `ideal-state bundle …`. */
export async function runCommand(argv: string[], io: Output, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, options: OPTIONS });
  } catch (error) {
    io.err(`ideal-state: ${(error as Error).message}\n\n${RUN_USAGE}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const workspace = path.resolve(v.workspace ?? process.cwd());
  const storeFile = v.store ? path.resolve(v.store) : defaultCliStoreFile(workspace, env);
  if (positionals[0] === 'bundle') return bundle(positionals[1], v.out, storeFile, workspace, io);
  if (positionals[0] === 'undo') return undo(positionals[1], storeFile, workspace, v.json === true, io);

  const request = positionals.slice(1).join(' ').trim();
  if (!v.resume && !request && !v.prd) {
    io.err(`ideal-state: run needs a request in quotes, --prd FILE or --resume RUN_ID\n\n${RUN_USAGE}`);
    return 2;
  }
  const approve = new Set((v.approve ?? '').split(',').map((s) => s.trim()).filter(Boolean));
  for (const a of approve) {
    if (a === 'config' || a === 'configuration') {
      // Not a blanket flag on purpose: each change to a file that steers what runs is the person's (issue 15).
      io.err('ideal-state: --approve cannot approve configuration changes (.vscode, .ideal-state, package.json scripts, git hooks, CI…): each one is asked on the terminal and denied without one; .git is never written');
      return 2;
    }
    if (a !== 'edits' && a !== 'commands') {
      io.err(`ideal-state: --approve takes "edits", "commands" or "edits,commands", not "${a}"`);
      return 2;
    }
  }
  const definitions = await loadDefinitions(nodeTextFiles, { shippedIscDir: path.join(__dirname, '..', 'isc-definitions'), effortOverrideFile: path.join(workspace, SETTINGS.effortLevelsFile.default) });
  for (const p of definitions.problems) io.err(`warning: ${formatProblem(p)}`);
  const table = definitions.effort.table;

  const store = await Store.open({ file: storeFile });
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    printStoreWarnings(store, io.err, { skipReadOnly: true });
    if (store.readOnly) {
      io.err(storeBusyMessage(store, 'Nothing was run.'));
      return STORE_BUSY_EXIT_CODE;
    }
    let level: EffortLevel;
    let text = request;
    let prd: { path: string; criteria: import('../model').AnyCriterion[]; maxIterations?: number } | undefined;
    const existing = v.resume ? store.runs.get(v.resume) : undefined;
    if (v.resume) {
      if (!existing) {
        io.err(`ideal-state: no run ${v.resume} in ${store.location}`);
        return 2;
      }
      level = existing.effort;
    } else {
      if (v.prd) {
        const file = path.resolve(workspace, v.prd);
        const rel = path.relative(workspace, file).split(path.sep).join('/');
        if (rel.startsWith('..')) {
          io.err(`ideal-state: --prd ${v.prd} is outside the workspace ${workspace}`);
          return 2;
        }
        let prdText: string;
        try {
          prdText = await fs.readFile(file, 'utf8');
        } catch {
          io.err(`ideal-state: cannot read the PRD ${v.prd}`);
          return 2;
        }
        const read = criteriaFromPrd(prdText, new Date().toISOString(), toCoreCriterion);
        if (read.problems.length > 0) {
          for (const p of read.problems) io.err(`${rel}: ${p}`);
          io.err(`ideal-state: fix the PRD's errors first (ideal-state prd check ${rel})`);
          return 2;
        }
        prd = { path: rel, criteria: read.criteria, ...(read.maxIterations !== undefined ? { maxIterations: read.maxIterations } : {}) };
        text ||= read.title ?? rel;
      }
      const chosen = pickLevel(v.effort, text, table);
      if (!chosen.ok) {
        io.err(`ideal-state: ${chosen.message}`);
        return 2;
      }
      level = chosen.level;
      text = chosen.request;
    }

    const logger = new MemoryLogger();
    const config = cliWorkspaceConfig(workspace, env, v['trust-workspace'] === true, io);
    let resolved: ResolvedModels;
    try {
      resolved = await models(v, workspace, env, config, lessonsOf(store, logger, v.json === true ? undefined : io));
    } catch (error) {
      io.err(`ideal-state: ${error instanceof Error ? error.message : String(error)}`);
      return 2;
    }
    const router = new ModelRouter(resolved, { logger, budget: BudgetLedger.forLevel(level, resolved.config.budgets?.[level], { prices: resolved.catalogue, logger }) });
    let runId: string | undefined;
    const approver = process.stdin.isTTY ? withApprovalNotice(terminalApprover(io), workspace, io.err, () => runId) : denyAll;
    const { engine, problems } = await nodeAlgorithm({
      workspace,
      store,
      models: router,
      effort: table,
      approver,
      autoApproveEdits: approve.has('edits'),
      allowCommands: approve.has('commands') ? ['*'] : [],
      readOverride: (rel) => config.read(rel),
      logger,
      learning: { version: await productVersion() },
      onEvent: (e) => {
        runId = e.runId;
        if (!v.json && (e.kind === 'phase' || e.kind === 'verification' || e.kind === 'budget' || e.kind === 'approval')) io.err(`[${e.phase ?? '-'}] ${e.message}`);
      },
      onApproval: (r, ok, how) => io.err(`[approval] ${r.title}: ${ok ? 'approved' : 'denied'} (${how})`),
    });
    for (const p of problems) io.err(`warning: ${formatProblem(p)}`);
    let result;
    try {
      result = v.resume ? await engine.resume(v.resume, controller.signal) : await engine.start({ request: text, effort: level, ...(prd ? { prd } : {}), workspaceFolder: workspace }, controller.signal);
    } catch (error) {
      // Refused before it started (nothing was created): said, exit 2 like other input the run cannot take.
      if ((error as { code?: unknown }).code !== 'run-refused') throw error;
      io.err(`ideal-state: ${(error as Error).message}`);
      return 2;
    }
    report(result, v.json === true, io, storeWarningsJson(store), runUsage(store.events.where('run_id = ?', [result.run.id], 'seq')));
    await runEnded(result, workspace, io.err);
    return EXIT_CODES[result.state];
  } finally {
    process.removeListener('SIGINT', onSigint);
    store.close();
  }
}

function pickLevel(flag: string | undefined, request: string, table: EffortTable): { ok: true; level: EffortLevel; request: string } | { ok: false; message: string } {
  if (flag === undefined || flag.toUpperCase() === 'AUTO') {
    const c = classifyEffort(request, table);
    return { ok: true, level: c.level, request: c.request };
  }
  const found = resolveEffortLevel(flag, table);
  return found.ok ? { ok: true, level: found.level, request } : found;
}

export type Adapting = Pick<ResolveOptions, 'lessons' | 'onLesson' | 'logger'>;

/**
 * What servers refused in earlier runs (so it is not sent again), and where a new refusal
 * goes: the store, the log and the terminal.
 */
export function lessonsOf(store: Store, logger: MemoryLogger, io: Output | undefined): Adapting {
  return {
    lessons: store.modelLessons.list(),
    logger,
    onLesson: (lesson) => {
      store.modelLessons.add(lesson);
      io?.err(`[model] ${describeLesson(lesson)}`);
    },
  };
}

/**
 * The models: `--provider scripted --script FILE`, else the workspace models file when its
 * content is trusted (`config` says what it ignored), else the environment.
 */
export async function models(v: { provider?: string; script?: string; model?: string }, workspace: string, env: NodeJS.ProcessEnv, config: WorkspaceConfig, adapting: Adapting = {}): Promise<ResolvedModels> {
  if (v.provider === 'scripted') {
    if (!v.script) throw new Error('--provider scripted needs --script FILE');
    const script = path.resolve(v.script);
    const scripted = LlmConfig.parse({ version: 1, providers: [{ id: 'scripted', kind: 'scripted', script }], models: [{ id: 'scripted', provider: 'scripted', model: path.basename(script) }], routing: { default: 'scripted' } });
    return resolveModels(scripted, { env });
  }
  if (v.provider !== undefined && v.provider !== 'openai' && v.provider !== 'anthropic') throw new Error(`--provider is openai, anthropic or scripted, not "${v.provider}"`);
  const read = v.provider === undefined ? await config.read(SETTINGS.modelsConfigFile.default) : undefined;
  if (read !== undefined) {
    const file = path.join(workspace, SETTINGS.modelsConfigFile.default);
    // Used with --trust-workspace, a file the user has not read may not choose which key goes where.
    const parsed = parseLlmConfig(file, read.text, { untrusted: read.trust === 'flag' });
    if (!parsed.ok) {
      const keyRuleOnly = read.trust === 'flag' && parseLlmConfig(file, read.text).ok;
      const fix = keyRuleOnly ? `\n(run \`${trustCommandFor(workspace, read.file)}\` after reading it to use the file as it is)` : '';
      throw new Error(`${parsed.problems.map(formatProblem).join('\n')}${fix}`);
    }
    return resolveModels(parsed.value, { env, ...adapting, ...(v.model ? { model: v.model } : {}), baseDir: workspace });
  }
  return resolveModels(undefined, { env, ...adapting, ...(v.model ? { model: v.model } : {}), ...(v.provider ? { provider: v.provider as 'openai' | 'anthropic' } : {}) });
}

/** Asks on the terminal: [y]es, [n]o, [a]lways for this run (a configuration change: yes or no, each one). */
function terminalApprover(io: Output): Approver {
  return {
    async ask(request, signal): Promise<ApprovalAnswer> {
      io.err(`\n${request.title}\n${request.detail}`);
      const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
      try {
        const config = request.kind === 'config';
        const command = request.kind === 'command' && request.remembersDenial === true;
        const answer = (await rl.question(config ? 'Approve this configuration change? [y]es / [n]o (asked for each one): ' : `Approve? [y]es / [n]o / [a]lways for this run${command ? ' / ne[v]er (deny always)' : ''}: `, { signal })).trim().toLowerCase();
        if (config) return answer.startsWith('y') ? 'approve' : 'deny';
        // "Deny always" (issue 28 §3): a verification command is remembered as denied for this workspace and never asked about again (offered only where the denial is remembered).
        if (command && (answer === 'v' || answer === 'never')) return 'never';
        return answer.startsWith('a') ? 'always' : answer.startsWith('y') ? 'approve' : 'deny';
      } finally {
        rl.close();
      }
    },
  };
}

function report(result: RunResult, json: boolean, io: Output, warnings: ReturnType<typeof storeWarningsJson>, usage: RunUsage): void {
  const byId = new Map((result.report?.results ?? []).map((r) => [r.criterionId, r]));
  if (json) {
    io.out(
      JSON.stringify({
        runId: result.run.id,
        state: result.state,
        reason: result.reason ?? null,
        effort: result.run.effort,
        iterations: result.run.iteration,
        prd: result.run.prdPath ?? null,
        criteria: result.criteria.map((c) => ({ id: c.id, kind: c.kind, text: c.text, priority: c.priority, status: c.status, outcome: byId.get(c.id)?.outcome ?? null, evidence: byId.get(c.id)?.evidence ?? null, failureLabel: byId.get(c.id)?.failureLabel ?? null })),
        unmet: result.unmet.map((c) => c.id),
        bestReportId: result.bestReportId ?? null,
        // Tokens (fresh, cached, written, output) and dollars, for the run and each phase.
        usage,
        warnings,
      }),
    );
    return;
  }
  io.out(`${result.state}${result.reason ? `: ${result.reason}` : ''}`);
  for (const c of result.criteria) io.out(`  ${(byId.get(c.id)?.outcome ?? '—').padEnd(7)} ${c.id}: ${c.text}`);
  io.out(`run ${result.run.id}${result.run.prdPath ? `, PRD ${result.run.prdPath}` : ''}`);
  io.out(`spent ${usageLine(usage)}`);
}

/** Opens the store, and runs `work` on a run that exists there (exit 2 when it does not). */
async function withStoredRun(runId: string, storeFile: string, io: Output, work: (store: Store) => Promise<number>): Promise<number> {
  const store = await Store.open({ file: storeFile });
  try {
    printStoreWarnings(store, io.err);
    if (!store.runs.get(runId)) {
      io.err(`ideal-state: no run ${runId} in ${store.location}`);
      return 2;
    }
    return await work(store);
  } finally {
    store.close();
  }
}

async function bundle(runId: string | undefined, out: string | undefined, storeFile: string, workspace: string, io: Output): Promise<number> {
  if (!runId || !out) {
    io.err(`ideal-state: bundle needs RUN_ID and --out DIR\n\n${RUN_USAGE}`);
    return 2;
  }
  return withStoredRun(runId, storeFile, io, async (store) => {
    const written = await exportRunBundle(store, runId, path.resolve(out), workspace);
    io.out(`bundle written to ${written.folder} (${written.files.length} files)`);
    return 0;
  });
}

async function undo(runId: string | undefined, storeFile: string, workspace: string, json: boolean, io: Output): Promise<number> {
  if (!runId) {
    io.err(`ideal-state: undo needs RUN_ID\n\n${RUN_USAGE}`);
    return 2;
  }
  return withStoredRun(runId, storeFile, io, async (store) => {
    const { changed, left } = await undoRunChanges(new StoreRunStorage(store).checkpoints(runId), new NodeWorkspace(workspace));
    // A file edited after the run (its PRD) is left as it is, and said so.
    if (json) io.out(JSON.stringify({ runId, restored: changed, left, warnings: storeWarningsJson(store) }));
    else {
      io.out(changed.length > 0 ? `restored ${changed.length} file(s): ${changed.join(', ')}` : left.length > 0 ? 'no file restored' : 'the run changed no files');
      for (const l of left) io.err(`ideal-state: ${l.path} not restored: ${l.reason}`);
    }
    return 0;
  });
}
