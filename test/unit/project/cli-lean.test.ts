import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The stop hook starts `ideal-state gate` at every stop of every agent turn, and an agent calls
 * the MCP server every turn (issue 26): what they load is what they cost. `node esbuild.mjs`
 * splits the command line per subcommand and leaves its metafile in out/cli-metafile.json; from
 * it, the modules a subcommand loads are those of the entry's chunks and the subcommand's
 * chunk, following static imports only (a dynamic import runs only when its code does).
 */
const ROOT = REPO_ROOT;

interface Output {
  entryPoint?: string;
  bytes: number;
  inputs: Record<string, { bytesInOutput: number }>;
  imports: { path: string; kind: string }[];
}

function metafile(): Record<string, Output> {
  const file = path.join(ROOT, 'out', 'cli-metafile.json');
  assert.ok(fs.existsSync(file), `${file} is missing: run node esbuild.mjs`);
  return (JSON.parse(fs.readFileSync(file, 'utf8')) as { outputs: Record<string, Output> }).outputs;
}

/** Where each command's module is: the gate's stop hook in src/cli/gate, the others in src/cli/commands. */
const sourceOf = (command: string) => (command === 'gate' ? 'src/cli/gate/stop.ts' : `src/cli/commands/${command}.ts`);

/** The output files loaded when `ideal-state <command>` runs, and the source files in them. */
function loadedBy(command: string): { files: string[]; inputs: string[]; bytes: number } {
  const outputs = metafile();
  const entryOf = (source: string) => {
    const found = Object.entries(outputs).find(([, o]) => o.entryPoint === source);
    assert.ok(found, `no chunk starts at ${source}: is it still imported with await import()?`);
    return found[0];
  };
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !outputs[file]) return;
    seen.add(file);
    for (const i of outputs[file]!.imports) if (i.kind === 'import-statement') visit(i.path);
  };
  visit(entryOf('src/cli/start/bin.ts'));
  visit(entryOf(sourceOf(command)));
  const files = [...seen];
  // node_modules is a link in a worktree: its inputs may be spelt ../main/node_modules/…
  const inputs = files.flatMap((f) => Object.keys(outputs[f]!.inputs)).map((i) => i.replace(/^(\.\.\/)+[^/]+\/node_modules\//, 'node_modules/'));
  return { files, inputs, bytes: files.reduce((n, f) => n + outputs[f]!.bytes, 0) };
}

/**
 * What the lean command line (dist/cli-lean.cjs: `gate` and `verify`, src/cli/start/lean.ts) runs when
 * it loads: its source files reached from the entry by static imports. A dynamic import is in the
 * same file but runs only when its code does (esbuild wraps it; out/cli-lean-metafile.json).
 */
function leanLoads(): string[] {
  const file = path.join(ROOT, 'out', 'cli-lean-metafile.json');
  assert.ok(fs.existsSync(file), `${file} is missing: run node esbuild.mjs`);
  const inputs = (JSON.parse(fs.readFileSync(file, 'utf8')) as { inputs: Record<string, { imports: { path: string; kind: string }[] }> }).inputs;
  const seen = new Set<string>();
  const visit = (input: string) => {
    if (seen.has(input) || !inputs[input]) return;
    seen.add(input);
    for (const i of inputs[input]!.imports) if (i.kind === 'import-statement' || i.kind === 'require-call') visit(i.path);
  };
  visit('src/cli/start/lean.ts');
  return [...seen].map((i) => i.replace(/^(\.\.\/)+[^/]+\/node_modules\//, 'node_modules/'));
}

const MODEL_CODE = [/^node_modules\/openai\//, /^node_modules\/@anthropic-ai\/sdk\//, /^src\/llm\/catalogue\.ts$/, /^src\/llm\/data\/models\.yaml$/, /^src\/llm\/resolve\.ts$/, /^src\/llm\/providers\//];
const modelCode = (inputs: readonly string[]) => inputs.filter((i) => MODEL_CODE.some((m) => m.test(i)));

describe('command line: what each subcommand loads (issue 26)', () => {
  for (const command of ['gate', 'verify', 'mcp']) {
    it(`ideal-state ${command} loads no model SDK, no provider and no model catalogue`, () => {
      const { inputs } = loadedBy(command);
      assert.ok(inputs.includes(sourceOf(command)), `${sourceOf(command)} is among what ${command} loads`);
      assert.deepEqual(modelCode(inputs), []);
    });
  }

  it('ideal-state run still loads both SDKs and the catalogue (so the check above can tell)', () => {
    const { inputs } = loadedBy('run');
    for (const m of [/^node_modules\/openai\//, /^node_modules\/@anthropic-ai\/sdk\//, /^src\/llm\/data\/models\.yaml$/]) assert.ok(inputs.some((i) => m.test(i)), `run loads ${m}`);
  });

  it('the gate and verify leave the MCP SDK and ajv to mcp', () => {
    for (const command of ['gate', 'verify']) {
      const { inputs } = loadedBy(command);
      assert.deepEqual(
        inputs.filter((i) => /^node_modules\/(@modelcontextprotocol|ajv)\//.test(i)),
        [],
        command,
      );
    }
    assert.ok(loadedBy('mcp').inputs.some((i) => i.startsWith('node_modules/@modelcontextprotocol/')));
  });

  it('the gate and verify load no SQLite: their report is a pending record (src/store/pending.ts)', () => {
    for (const command of ['gate', 'verify']) {
      const { inputs } = loadedBy(command);
      assert.deepEqual(
        inputs.filter((i) => /^node_modules\/sql\.js\/|^src\/store\/(store|durable-database|migrations)\.ts$/.test(i)),
        [],
        command,
      );
    }
    // The check can tell: the store's own command loads it.
    assert.ok(loadedBy('ratings').inputs.includes('src/store/store.ts'));
  });

  it('the lean gate and verify (dist/cli-lean.cjs) run no model code, no MCP SDK and no SQLite when they load', () => {
    const loads = leanLoads();
    for (const command of ['gate', 'verify']) assert.ok(loads.includes(sourceOf(command)), `${command} is in the lean command line`);
    assert.deepEqual(modelCode(loads), []);
    assert.deepEqual(loads.filter((i) => /^node_modules\/(@modelcontextprotocol|ajv|sql\.js)\/|^src\/store\/(store|durable-database|migrations)\.ts$/.test(i)), []);
    // The check can tell: the store is in the file, behind the dynamic import that runs it only when asked.
    const all = Object.keys((JSON.parse(fs.readFileSync(path.join(ROOT, 'out', 'cli-lean-metafile.json'), 'utf8')) as { inputs: Record<string, unknown> }).inputs);
    assert.ok(all.includes('src/store/store.ts'));
    assert.deepEqual(loads.filter((i) => /zod\/v4\/locales\/(?!index)/.test(i)), ['node_modules/zod/v4/locales/en.js']);
  });

  it('the lean gate and verify build no schema and run no module they never call when they load: no barrel, no store sync, no MCP answer shapes', () => {
    const loads = leanLoads();
    // A barrel (index.ts) loads every module it names, each building its zod schemas at load.
    assert.deepEqual(loads.filter((i) => /^src\/(prd|app\/gate|verify|model)\/index\.ts$|^src\/app\/done-gate\.ts$/.test(i)), []);
    // Only the store's path (behind its dynamic import) syncs a PRD into runs; only the editor merges, creates and views PRDs, approves and reverts; only MCP declares answer shapes.
    const unused = /^src\/(prd\/(store-sync|merge|new-prd|view)|app\/gate\/(answer-shapes|approve|revert))\.ts$/;
    assert.deepEqual(loads.filter((i) => unused.test(i)), []);
    // The check can tell: each file it names is there, and MCP still loads the answer shapes.
    for (const name of ['prd/store-sync', 'prd/merge', 'prd/new-prd', 'prd/view', 'app/gate/answer-shapes', 'app/gate/approve', 'app/gate/revert']) assert.ok(fs.existsSync(path.join(ROOT, 'src', `${name}.ts`)), name);
    assert.ok(loadedBy('mcp').inputs.includes('src/app/gate/answer-shapes.ts'));
  });

  it('loads one language of zod messages, English', () => {
    const { inputs } = loadedBy('gate');
    const locales = inputs.filter((i) => /zod\/v4\/locales\/(?!index)/.test(i));
    assert.deepEqual(locales, ['node_modules/zod/v4/locales/en.js']);
  });
});
