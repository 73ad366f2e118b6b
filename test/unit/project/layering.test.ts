import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SETTINGS } from '../../../src/model/settings';
import { REPO_ROOT } from '../support/repo-root';

const ROOT = REPO_ROOT;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('layering and manifest', () => {
  it('keeps every layer but src/vscode free of the vscode module', () => {
    const offenders = fs
      .readdirSync(path.join(ROOT, 'src'))
      .filter((d) => d !== 'vscode')
      .flatMap((d) => (d.endsWith('.ts') ? [path.join(ROOT, 'src', d)] : sourceFiles(path.join(ROOT, 'src', d))))
      .filter((f) => /from\s+['"]vscode['"]|require\(['"]vscode['"]\)/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('keeps the model and the algorithm free of Node built-ins so they can run anywhere', () => {
    const offenders = ['model', 'algorithm'].flatMap((d) => sourceFiles(path.join(ROOT, 'src', d))).filter((f) => /from\s+['"]node:/.test(fs.readFileSync(f, 'utf8')));
    assert.deepEqual(offenders, []);
  });

  it('declares every setting of model/settings in the manifest with the same default', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const properties = manifest.contributes.configuration.properties as Record<string, { default: unknown }>;
    for (const { key, default: value } of Object.values(SETTINGS)) {
      assert.ok(properties[key], `${key} is in package.json`);
      assert.deepEqual(properties[key].default, value, key);
    }
    assert.equal(Object.keys(properties).length, Object.keys(SETTINGS).length, 'no setting in the manifest that the code does not read');
  });

  it('contributes commands only under the Ideal State category, each registered in src/vscode', () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const editorSources = sourceFiles(path.join(ROOT, 'src', 'vscode')).map((f) => fs.readFileSync(f, 'utf8')).join('\n');
    for (const command of manifest.contributes.commands as { command: string; category: string }[]) {
      assert.equal(command.category, 'Ideal State');
      assert.ok(editorSources.includes(`'${command.command}'`), `${command.command} is registered`);
    }
  });
});

/**
 * The layers, lowest first (issue 16): a folder may import its own layer and the ones below,
 * never one above. model ← prd, llm, store ← verify, learning ← algorithm ← agent ← app ←
 * cli, mcp, node, vscode. The editor's pure webview code is its own world (webviews/).
 */
const LAYERS: readonly (readonly string[])[] = [['model'], ['prd', 'llm', 'store'], ['verify', 'learning'], ['algorithm'], ['agent'], ['app'], ['cli', 'mcp', 'node', 'vscode']];

function layerOf(file: string): number | undefined {
  const top = path.relative(path.join(ROOT, 'src'), file).split(path.sep)[0]!;
  const i = LAYERS.findIndex((l) => l.includes(top));
  return i < 0 ? undefined : i;
}

describe('layers', () => {
  it('names a layer for every folder under src', () => {
    const folders = fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    assert.deepEqual(folders.filter((f) => !LAYERS.flat().includes(f)), []);
  });

  it('imports only downward: model ← prd, llm, store ← verify, learning ← algorithm ← agent ← app ← cli, mcp, node, vscode', () => {
    const upward: string[] = [];
    for (const file of sourceFiles(path.join(ROOT, 'src'))) {
      const from = layerOf(file);
      if (from === undefined) continue;
      for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
        const target = path.resolve(path.dirname(file), m[1]!);
        if (!target.startsWith(path.join(ROOT, 'src') + path.sep)) continue;
        const to = layerOf(target);
        if (to !== undefined && to > from) upward.push(`${path.relative(ROOT, file)} → ${m[1]}`);
      }
    }
    assert.deepEqual(upward, []);
  });

  it('has no circle in the import graph of src (type imports and re-exports included)', () => {
    const graph = importGraph();
    assert.ok(graph.size > 100, 'the graph holds the source files');
    assert.deepEqual(circles(graph), []);
  });

  it('finds a circle when there is one (the check above can fail)', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    assert.deepEqual(circles(graph), ['a → b → c → a']);
  });

  it('keeps src/mcp off src/cli: both are adapters over src/app (issue 23)', () => {
    const sideways = sourceFiles(path.join(ROOT, 'src', 'mcp')).flatMap((file) =>
      [...fs.readFileSync(file, 'utf8').matchAll(/(?:from|import\()\s*['"](\.{1,2}\/[^'"]+)['"]/g)]
        .filter((m) => path.resolve(path.dirname(file), m[1]!).startsWith(path.join(ROOT, 'src', 'cli') + path.sep) || path.resolve(path.dirname(file), m[1]!) === path.join(ROOT, 'src', 'cli'))
        .map((m) => `${path.relative(ROOT, file)} → ${m[1]}`),
    );
    assert.ok(sourceFiles(path.join(ROOT, 'src', 'mcp')).length > 0, 'src/mcp has files to check');
    assert.deepEqual(sideways, []);
  });
});

const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/** Each source file under src and the source files it imports (statically, by type, by re-export or when it runs). */
function importGraph(): Map<string, string[]> {
  const resolve = (from: string, spec: string): string | undefined => {
    const base = path.resolve(path.dirname(from), spec.replace(/\.js$/, ''));
    return [`${base}.ts`, path.join(base, 'index.ts')].find((f) => fs.existsSync(f));
  };
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    const text = fs.readFileSync(file, 'utf8');
    const targets = [...text.matchAll(IMPORT)].map((m) => resolve(file, (m[1] ?? m[2])!)).filter((t): t is string => t !== undefined);
    graph.set(path.relative(ROOT, file), [...new Set(targets.map((t) => path.relative(ROOT, t)))]);
  }
  return graph;
}

/** Every circle of the graph, once each, written from its first file in sorted order. */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const found = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') {
        const loop = stack.slice(stack.indexOf(next));
        const first = loop.indexOf([...loop].sort()[0]!);
        const turned = [...loop.slice(first), ...loop.slice(0, first)];
        found.add([...turned, turned[0]].join(' → '));
      } else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return [...found].sort();
}
