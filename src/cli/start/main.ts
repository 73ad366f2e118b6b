import * as path from 'node:path';
import { defineCommand, USAGE_EXIT } from '../shared/command';
import type { CliIo } from '../shared/io';
import { USAGE } from '../shared/usage';

// Each command is imported when it runs, never at start: the bundle is split per command
// (esbuild.mjs), so `gate`, `verify` and `mcp` load no model SDK and no model catalogue.
// A new command: one row below with its own `await import(...)`, not an import above.

type Command = (argv: string[], io: CliIo) => Promise<number>;

/** The commands that read their own arguments, by the words that name them; each is given the arguments after those words. */
const COMMANDS: Readonly<Record<string, Command>> = {
  run: async (argv, io) => (await import('../commands/run.js')).runCommand(argv, io),
  bundle: async (argv, io) => (await import('../commands/bundle.js')).bundleCommand(argv, io),
  undo: async (argv, io) => (await import('../commands/undo.js')).undoCommand(argv, io),
  loop: async (argv, io) => (await import('../commands/loop.js')).loopCommand(argv, io),
  models: async (argv, io) => (await import('../commands/models.js')).modelsCommand(argv, io),
  trust: async (argv, io) => (await import('../commands/trust.js')).trustCommand(argv, io),
  criteria: async (argv, io) => (await import('../commands/criteria.js')).criteriaCommand(argv, io),
  'criteria pending': async (argv, io) => (await import('../commands/criteria-pending.js')).criteriaPendingCommand(argv, io),
  mcp: async (argv, io) => (await import('../commands/mcp.js')).mcpCommand(argv, io),
  verify: async (argv, io) => (await import('../commands/verify.js')).verifyCommand(argv, io),
  gate: async (argv, io) => (await import('../gate/stop.js')).gateCommand(argv, io),
  'gate install': async (argv, io) => (await import('../gate/install.js')).gateInstallCommand(argv, io),
  'gate doctor': async (argv, io) => (await import('../gate/doctor.js')).gateDoctorCommand(argv, io),
  'gate blocked': async (argv, io) => (await import('../gate/blocked.js')).gateBlockedCommand(argv, io),
  dashboard: async (argv, io) => (await import('../commands/dashboard.js')).dashboardCommand(argv, io),
  schedule: async (argv, io) => (await import('../commands/schedule.js')).scheduleCommand(argv, io),
  notify: async (argv, io) => (await import('../commands/notify.js')).notifyCommand(argv, io),
};

/** The whole command line's options, which the look-ups below share, before or after their words. */
const WHOLE = defineCommand({
  name: 'ideal-state',
  usage: USAGE,
  options: { workspace: { type: 'string' }, store: { type: 'string' }, out: { type: 'string' }, json: { type: 'boolean', default: false } },
});

interface LookupArgs {
  readonly workspace: string;
  readonly json: boolean;
  readonly out?: string;
  /** The store: --store, else the workspace's under the user data folder. */
  storeFile(): Promise<string>;
}

/** A look-up: how many words it takes after its name, and what it does with them. */
interface Lookup {
  readonly words: number;
  run(words: string[], args: LookupArgs, io: CliIo): Promise<number>;
}

const LOOKUPS: Readonly<Record<string, Lookup>> = {
  'store info': { words: 0, run: async (_, a, io) => (await import('../commands/store-info.js')).storeInfo(await a.storeFile(), a.json, io) },
  effort: { words: 0, run: async (_, a, io) => (await import('../commands/definitions.js')).definitions('effort', a.workspace, a.json, io) },
  'isc list': { words: 0, run: async (_, a, io) => (await import('../commands/definitions.js')).definitions('isc list', a.workspace, a.json, io) },
  'prd check': { words: 1, run: async (words, a, io) => (await import('../commands/prd-check.js')).prdCheck(words[0], a.json, io) },
  ratings: { words: Infinity, run: async (words, a, io) => (await import('../commands/ratings.js')).learningCommand(['ratings', ...words], await learningArgs(a), io) },
  reflections: { words: Infinity, run: async (words, a, io) => (await import('../commands/ratings.js')).learningCommand(['reflections', ...words], await learningArgs(a), io) },
};

const learningArgs = async (a: LookupArgs) => ({ store: await a.storeFile(), json: a.json, ...(a.out ? { out: a.out } : {}) });

/** The command a command line names (its first two words, else its first), and the words after it. */
function named<T>(table: Readonly<Record<string, T>>, words: readonly string[]): { entry: T; rest: string[] } | undefined {
  for (const n of [2, 1]) {
    const entry = words.length >= n ? table[words.slice(0, n).join(' ')] : undefined;
    if (entry !== undefined) return { entry, rest: words.slice(n) };
  }
  return undefined;
}

/** `ideal-state` on a terminal or in CI: the same core and store as the extension. */
export async function main(argv: string[], io: CliIo): Promise<number> {
  const command = named(COMMANDS, argv);
  if (command) return command.entry(command.rest, io);
  const parsed = WHOLE.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values, positionals } = parsed;
  if (positionals.length === 0) {
    io.err(USAGE);
    return USAGE_EXIT;
  }
  const lookup = named(LOOKUPS, positionals);
  if (!lookup || lookup.rest.length > lookup.entry.words) return WHOLE.usageError(io, `unknown command "${positionals.join(' ')}"`);
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const storeFile = async () => (values.store ? path.resolve(values.store) : (await import('../../store/store.js')).defaultCliStoreFile(workspace));
  return lookup.entry.run(lookup.rest, { workspace, json: values.json, storeFile, ...(values.out ? { out: values.out } : {}) }, io);
}
