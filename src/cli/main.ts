import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { VerifyIo } from './verify';

// Each subcommand is imported when it runs, never at start: the bundle is split per subcommand
// (esbuild.mjs), so `gate`, `verify` and `mcp` load no model SDK and no model catalogue.
// A new subcommand: one line in `main` with its own `await import(...)`, not an import above.

/**
 * `ideal-state` on a terminal or in CI: the same core and store as the extension.
 * Later issues add `run`, `verify` and `ratings`.
 */
const usage = async (): Promise<string> => {
  const [{ RUN_USAGE }, { LOOP_USAGE }, { MODELS_USAGE }, { LEARNING_USAGE }, { TRUST_USAGE }, { CRITERIA_USAGE }] = await Promise.all([import('./run.js'), import('./loop.js'), import('./models.js'), import('./ratings.js'), import('./trust.js'), import('./criteria.js')]);
  const [{ SCHEDULE_USAGE }, { NOTIFY_USAGE }] = await Promise.all([import('./schedule.js'), import('./notify.js')]);
  return `Usage: ideal-state <command> [options]

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
  criteria pending  accept (on a terminal) criteria an agent proposed through the MCP server
  dashboard --out DIR  the store's history as a static page (index.html + data.json; --help)
${RUN_USAGE}
${LOOP_USAGE}
${MODELS_USAGE}
${LEARNING_USAGE}
${TRUST_USAGE}
${CRITERIA_USAGE}
${SCHEDULE_USAGE}
${NOTIFY_USAGE}

Options:
  --workspace DIR   the workspace folder (default: the current directory)
  --out FILE        where an export goes (default: standard output)
  --store FILE      the store database (default: one per workspace under the user data folder)
  --json            machine-readable output
  -h, --help        this help
  -v, --version     the version of this command line
`;
};

type Output = VerifyIo;

export async function main(argv: string[], io: Output): Promise<number> {
  if ((argv[0] === 'run' || argv[0] === 'bundle' || argv[0] === 'undo') && !argv.includes('--help') && !argv.includes('-h')) return (await import('./run.js')).runCommand(argv, io);
  if (argv[0] === 'verify') return (await import('./verify.js')).verifyCommand(argv.slice(1), io);
  if (argv[0] === 'loop' && !argv.includes('--help') && !argv.includes('-h')) return (await import('./loop.js')).loopCommand(argv.slice(1), io);
  if (argv[0] === 'gate') return (await import('./gate.js')).gateCommand(argv.slice(1), io);
  if (argv[0] === 'dashboard') return (await import('./dashboard.js')).dashboardCommand(argv.slice(1), io);
  if (argv[0] === 'criteria' && argv[1] !== 'pending') return (await import('./criteria.js')).criteriaCommand(argv.slice(1), io);
  if (argv[0] === 'mcp') return (await import('./mcp.js')).mcpCommand(argv.slice(1), io);
  if (argv[0] === 'criteria' && argv[1] === 'pending') return (await import('./criteria-pending.js')).criteriaPendingCommand(argv.slice(2), io);
  if (argv[0] === 'models' && !argv.includes('--help') && !argv.includes('-h')) return (await import('./models.js')).modelsCommand(argv.slice(1), io);
  if (argv[0] === 'trust' && !argv.includes('--help') && !argv.includes('-h')) return (await import('./trust.js')).trustCommand(argv.slice(1), io);
  if (argv[0] === 'schedule' && !argv.includes('--help') && !argv.includes('-h')) return (await import('./schedule.js')).scheduleCommand(argv.slice(1), io);
  if (argv[0] === 'notify' && !argv.includes('--help') && !argv.includes('-h')) return (await import('./notify.js')).notifyCommand(argv.slice(1), io);
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
    io.err(`ideal-state: ${(error as Error).message}\n\n${await usage()}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    (values.help ? io.out : io.err)(await usage());
    return values.help ? 0 : 2;
  }
  if (positionals[0] === 'prd' && positionals[1] === 'check' && positionals.length <= 3) return (await import('./prd-check.js')).prdCheck(positionals[2], values.json, io);
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const command = positionals.join(' ');
  const storeFile = async () => (values.store ? path.resolve(values.store) : (await import('../store/store.js')).defaultCliStoreFile(workspace));
  if (positionals[0] === 'ratings' || positionals[0] === 'reflections') return (await import('./ratings.js')).learningCommand(positionals, { store: await storeFile(), json: values.json, ...(values.out ? { out: values.out } : {}) }, io);
  switch (command) {
    case 'store info':
      return storeInfo(await storeFile(), values.json, io);
    case 'effort':
    case 'isc list':
      return definitions(command, workspace, values.json, io);
    default:
      io.err(`ideal-state: unknown command "${command}"\n\n${await usage()}`);
      return 2;
  }
}

async function storeInfo(file: string, json: boolean, io: Output): Promise<number> {
  const [{ Store }, { printStoreWarnings, storeWarningsJson }] = await Promise.all([import('../store/store.js'), import('./store-warnings.js')]);
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
  const [{ formatProblem }, { loadDefinitions }, { EFFORT_LEVELS }, { SETTINGS }, { nodeTextFiles }] = await Promise.all([
    import('../model/data-file.js'),
    import('../model/definitions.js'),
    import('../model/index.js'),
    import('../model/settings.js'),
    import('../node/node-text-files.js'),
  ]);
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
