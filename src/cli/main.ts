import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { formatProblem } from '../model/data-file';
import { loadDefinitions } from '../model/definitions';
import { EFFORT_LEVELS } from '../model';
import { SETTINGS } from '../model/settings';
import { nodeTextFiles } from '../node/node-text-files';
import { MODELS_USAGE, modelsCommand } from './models';
import { prdCheck } from './prd-check';
import { LOOP_USAGE, loopCommand } from './loop';
import { RUN_USAGE, runCommand } from './run';
import { verifyCommand, type VerifyIo } from './verify';
import { gateCommand } from './gate';
import { CRITERIA_USAGE, criteriaCommand } from './criteria';
import { mcpCommand } from './mcp';
import { LEARNING_USAGE, learningCommand } from './ratings';
import { TRUST_USAGE, trustCommand } from './trust';
import { defaultCliStoreFile, Store } from '../store/store';
import { printStoreWarnings, storeWarningsJson } from './store-warnings';

/**
 * `ideal-state` on a terminal or in CI: the same core and store as the extension.
 * Later issues add `run`, `verify` and `ratings`.
 */
const USAGE = `Usage: ideal-state <command> [options]

Commands:
  store info     where the workspace's store is and what it holds
  effort         the effort table in force (shipped, plus the workspace override)
  isc list       the ISC definitions by artifact type
  prd check FILE a PRD's (or PAI ISA's) problems and ISC rule findings (exit 1 on errors,
                 2 if unreadable)
  verify FILE    verify a PRD's criteria or an ISA's claims (exit 0 all CRITICAL pass, 1 not,
                 2 bad input; --report junit|sarif|markdown for CI; see ideal-state verify --help)
  gate           a stop hook for an agent host: verify the PRD, keep the agent working while a
                 CRITICAL criterion fails (see ideal-state gate --help; gate install <host>)
  mcp            an MCP server over stdio: criteria, verify and propose_criteria tools
${RUN_USAGE}
${LOOP_USAGE}
${MODELS_USAGE}
${LEARNING_USAGE}
${TRUST_USAGE}
${CRITERIA_USAGE}

Options:
  --workspace DIR   the workspace folder (default: the current directory)
  --out FILE        where an export goes (default: standard output)
  --store FILE      the store database (default: one per workspace under the user data folder)
  --json            machine-readable output
  -h, --help        this help
`;

type Output = VerifyIo;

export async function main(argv: string[], io: Output): Promise<number> {
  if ((argv[0] === 'run' || argv[0] === 'bundle' || argv[0] === 'undo') && !argv.includes('--help') && !argv.includes('-h')) return runCommand(argv, io);
  if (argv[0] === 'verify') return verifyCommand(argv.slice(1), io);
  if (argv[0] === 'loop' && !argv.includes('--help') && !argv.includes('-h')) return loopCommand(argv.slice(1), io);
  if (argv[0] === 'gate') return gateCommand(argv.slice(1), io);
  if (argv[0] === 'criteria') return criteriaCommand(argv.slice(1), io);
  if (argv[0] === 'mcp') return mcpCommand(argv.slice(1), io);
  if (argv[0] === 'models' && !argv.includes('--help') && !argv.includes('-h')) return modelsCommand(argv.slice(1), io);
  if (argv[0] === 'trust' && !argv.includes('--help') && !argv.includes('-h')) return trustCommand(argv.slice(1), io);
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        workspace: { type: 'string' },
        store: { type: 'string' },
        out: { type: 'string' },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    io.err(`ideal-state: ${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.out : io.err)(USAGE);
    return values.help ? 0 : 2;
  }
  if (positionals[0] === 'prd' && positionals[1] === 'check' && positionals.length <= 3) return prdCheck(positionals[2], values.json, io);
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const command = positionals.join(' ');
  const storeFile = values.store ? path.resolve(values.store) : defaultCliStoreFile(workspace);
  if (positionals[0] === 'ratings' || positionals[0] === 'reflections') return learningCommand(positionals, { store: storeFile, json: values.json, ...(values.out ? { out: values.out } : {}) }, io);
  switch (command) {
    case 'store info':
      return storeInfo(storeFile, values.json, io);
    case 'effort':
    case 'isc list':
      return definitions(command, workspace, values.json, io);
    default:
      io.err(`ideal-state: unknown command "${command}"\n\n${USAGE}`);
      return 2;
  }
}

async function storeInfo(file: string, json: boolean, io: Output): Promise<number> {
  const store = await Store.open({ file });
  try {
    printStoreWarnings(store, io.err);
    const info = { path: store.location, schemaVersion: store.schemaVersion, runs: store.runs.count(), readOnly: store.readOnly };
    io.out(json ? JSON.stringify({ ...info, warnings: storeWarningsJson(store) }) : `store: ${info.path}\nschema: v${info.schemaVersion}\nruns: ${info.runs}\nmode: ${info.readOnly ? 'read-only' : 'read-write'}`);
    return 0;
  } finally {
    store.close();
  }
}

async function definitions(command: string, workspace: string, json: boolean, io: Output): Promise<number> {
  const loaded = await loadDefinitions(nodeTextFiles, {
    shippedIscDir: path.join(__dirname, '..', 'isc-definitions'),
    workspaceIscDir: path.join(workspace, SETTINGS.iscDefinitionsFolder.default),
    effortOverrideFile: path.join(workspace, SETTINGS.effortLevelsFile.default),
  });
  for (const p of loaded.problems) io.err(`error: ${formatProblem(p)}`);
  if (command === 'effort') {
    const table = loaded.effort.table;
    if (json) io.out(JSON.stringify(table));
    else
      for (const level of EFFORT_LEVELS) {
        const s = table.levels[level];
        io.out(`${level.padEnd(14)} ${String(s.budgetSeconds).padStart(5)} s  ${`${s.minCriteria}–${s.maxCriteria}`.padStart(7)} criteria  ${String(s.maxIterations ?? '∞').padStart(2)} iterations  ${String(s.parallelism).padStart(2)} parallel`);
      }
  } else {
    const list = loaded.isc.list();
    if (json) io.out(JSON.stringify(list.map((r) => ({ artifactType: r.definition.artifactType, version: r.definition.version, origin: r.origin, file: r.file }))));
    else for (const r of list) io.out(`${r.definition.artifactType.padEnd(18)} v${r.definition.version}  ${r.definition.idealCriteria.length} criteria, ${r.definition.antiCriteria.length} anti  (${r.origin})`);
  }
  return loaded.problems.length > 0 ? 1 : 0;
}

if (require.main === module) {
  // A reader that stops early (`| head`) is not an error.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  // Ctrl+C cancels a verification: its commands are killed, nothing is reported as failed.
  const interrupt = new AbortController();
  if (process.argv[2] === 'verify' || process.argv[2] === 'gate' || process.argv[2] === 'loop') process.once('SIGINT', () => interrupt.abort());
  const ask = process.stdin.isTTY && process.stderr.isTTY ? (question: string) => askOnTerminal(question) : undefined;
  main(process.argv.slice(2), { out: (s) => process.stdout.write(`${s}\n`), err: (s) => process.stderr.write(`${s}\n`), signal: interrupt.signal, ...(ask ? { ask } : {}) }).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`ideal-state: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}

async function askOnTerminal(question: string): Promise<string> {
  const readline = await import('node:readline/promises');
  const rl = readline.createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}
