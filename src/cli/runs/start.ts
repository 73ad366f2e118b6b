import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { denyAll } from '../../agent/approvals';
import { classifyEffort } from '../../algorithm/effort-classifier';
import { criteriaFromPrd } from '../../algorithm/prd-sync';
import { nodeAlgorithm } from '../../app/node-run';
import { STORE_BUSY_EXIT_CODE, printStoreWarnings, storeBusyMessage, storeWarningsJson } from '../../app/store-warnings';
import { BudgetLedger } from '../../llm/budgets';
import type { ResolvedModels } from '../../llm/resolve';
import { ModelRouter } from '../../llm/router';
import { runUsage } from '../../llm/usage';
import type { AnyCriterion, EffortLevel, EffortTable } from '../../model';
import { formatProblem } from '../../model/data-file';
import { loadDefinitions } from '../../model/definitions';
import { resolveEffortLevel } from '../../model/effort-table';
import { MemoryLogger } from '../../model/log';
import { SETTINGS } from '../../model/settings';
import { nodeTextFiles } from '../../node/node-text-files';
import { toCoreCriterion } from '../../prd/to-core';
import { Store } from '../../store/store';
import type { CliIo } from '../shared/io';
import { lessonsOf, models } from '../shared/models';
import { productVersion } from '../shared/version';
import { cliWorkspaceConfig } from '../shared/workspace-config';
import { EXIT_CODES } from './definition';
import { reportRun } from './run-report';
import { terminalApprover } from './terminal-approver';
import { runEnded, withApprovalNotice } from '../shared/notify-sources';

/** A run as the command line asked for it, its arguments read. */
export interface RunArgs {
  readonly workspace: string;
  readonly storeFile: string;
  readonly request: string;
  readonly prd?: string;
  readonly effort?: string;
  readonly resume?: string;
  readonly approve: ReadonlySet<string>;
  readonly models: { provider?: string; script?: string; model?: string };
  readonly trustWorkspace: boolean;
  readonly json: boolean;
}

/**
 * Starts (or resumes) a run in the workspace and reports how it ended; the exit code is its
 * exit state's. Ctrl+C cancels it; a busy store runs nothing.
 */
export async function startRun(v: RunArgs, io: CliIo, env: NodeJS.ProcessEnv): Promise<number> {
  const { workspace, storeFile, request } = v;
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
    let prd: { path: string; criteria: AnyCriterion[]; maxIterations?: number } | undefined;
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
    const config = cliWorkspaceConfig(workspace, env, v.trustWorkspace, io);
    let resolved: ResolvedModels;
    try {
      resolved = await models(v.models, workspace, env, config, lessonsOf(store, logger, v.json ? undefined : io));
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
      autoApproveEdits: v.approve.has('edits'),
      allowCommands: v.approve.has('commands') ? ['*'] : [],
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
    reportRun(result, v.json, io, storeWarningsJson(store), runUsage(store.events.where('run_id = ?', [result.run.id], 'seq')));
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

