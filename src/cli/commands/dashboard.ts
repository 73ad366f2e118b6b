import * as fs from 'node:fs';
import * as path from 'node:path';
import { defineCommand } from '../shared/command';
import type { CliIo } from '../shared/io';

export const DASHBOARD_USAGE = `Usage: ideal-state dashboard --out DIR [--store FILE] [--workspace DIR]

Writes the store's history as a static page: DIR/index.html (opens offline, from file://, no
network) and DIR/data.json (the same figures for other programs): runs and their end states,
criteria pass rate, time to COMPLETE, tokens and cost, ratings, the done gate's verdicts per
agent host, TAMPERED events, the most often failing criteria and loop snapshots.

Options:
  --out DIR          the folder to write (made if missing; index.html and data.json replaced)
  --store FILE       the store database (default: the workspace's, under the user data folder)
  --workspace DIR    the workspace whose store to read (default: the current directory)
  -h, --help         this help
`;

/** Where the page's bundle is: beside the command line's bundles (dist/../media/dist), or the sources' build. */
function pageAssets(): { script: string; style: string } | undefined {
  for (const dir of [path.join(__dirname, '..', 'media', 'dist'), path.join(__dirname, '..', '..', '..', 'media', 'dist')]) {
    const script = path.join(dir, 'dashboard-page.js');
    const style = path.join(dir, 'dashboard-page.css');
    if (fs.existsSync(script) && fs.existsSync(style)) return { script, style };
  }
  return undefined;
}

const SQLITE_MAGIC = 'SQLite format 3\0';

/** Why `file` is not a store to read, or undefined when it is one (a store is never made or moved aside by a report). */
function notAStore(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return `no store at ${file}; name the store with --store FILE (\`ideal-state store info\` shows the workspace's)`;
  }
  if (!stat.isFile()) return `${file} is not a file; --store names the store's database file (ideal-state.sqlite)`;
  const head = Buffer.alloc(16);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, head, 0, 16, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (head.toString('latin1') !== SQLITE_MAGIC) return `${file} is not an Ideal State store (not an SQLite database)`;
  return undefined;
}

/** Writes `text` whole or not at all: a reader never sees half a page. */
function writeWhole(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, text, 'utf8');
  fs.renameSync(tmp, file);
}

const DASHBOARD = defineCommand({ name: 'ideal-state dashboard', usage: DASHBOARD_USAGE, options: { out: { type: 'string' }, store: { type: 'string' }, workspace: { type: 'string' } }, positionals: false });

/** `ideal-state dashboard --out DIR`: the store's history as a static page. */
export async function dashboardCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = DASHBOARD.parse(argv, io);
  if (typeof parsed === 'number') return parsed;
  const { values } = parsed;
  if (!values.out) return DASHBOARD.usageError(io, '--out DIR is required (the folder for index.html and data.json)');
  const { defaultCliStoreFile } = await import('../../store/store-paths.js');
  const workspace = path.resolve(values.workspace ?? process.cwd());
  const storeFile = values.store ? path.resolve(values.store) : defaultCliStoreFile(workspace);
  const problem = notAStore(storeFile);
  if (problem) {
    io.err(`ideal-state dashboard: ${problem}`);
    return 2;
  }
  const out = path.resolve(values.out);
  if (fs.existsSync(out) && !fs.statSync(out).isDirectory()) {
    io.err(`ideal-state dashboard: --out ${out} is a file; name a folder`);
    return 2;
  }
  const assets = pageAssets();
  if (!assets) {
    io.err(`ideal-state dashboard: the page's script (media/dist/dashboard-page.js) is missing from this install; reinstall ideal-state, or build it with node esbuild.mjs`);
    return 2;
  }
  const [{ Store }, { aggregateDashboard, staticDashboardPage }, { printStoreWarnings }, { readGateOutcomes }] = await Promise.all([import('../../store/store.js'), import('../../app/dashboard/index.js'), import('../../app/store-warnings.js'), import('../../app/dashboard/gate-outcomes.js')]);
  // Another store (--store): the gate's verdicts are still where the gate leaves them for this
  // workspace (the default store and its pending records), read-only and counted once by id.
  const gate = storeFile === defaultCliStoreFile(workspace) ? undefined : await readGateOutcomes(workspace);
  if (gate && gate.skipped > 0) io.err(`ideal-state dashboard: ${gate.skipped} of the records beside ${gate.storeFile} are not verdicts the gate wrote; they are not counted`);
  const store = await Store.open({ file: storeFile });
  let data;
  try {
    printStoreWarnings(store, io.err);
    data = aggregateDashboard(store, gate ? { gateOutcomes: gate.records } : {});
  } finally {
    store.close();
  }
  const page = staticDashboardPage({ data, script: fs.readFileSync(assets.script, 'utf8'), style: fs.readFileSync(assets.style, 'utf8'), source: storeFile });
  fs.mkdirSync(out, { recursive: true });
  writeWhole(path.join(out, 'data.json'), `${JSON.stringify(data, null, 2)}\n`);
  writeWhole(path.join(out, 'index.html'), page);
  io.out(`${path.join(out, 'index.html')}: ${data.empty ? 'no runs in the store yet' : `${data.totals.runs} run${data.totals.runs === 1 ? '' : 's'}, ${data.prds.length} PRD${data.prds.length === 1 ? '' : 's'}, ${data.days.length} day${data.days.length === 1 ? '' : 's'}`} (data.json beside it)`);
  return 0;
}
