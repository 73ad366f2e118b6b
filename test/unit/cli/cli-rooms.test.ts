import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The command line's shape, kept: each command is a file the start-up names, no command reaches
 * into another (what two share lives in shared/ or beneath them), every command reads its
 * arguments through the one definition (src/cli/shared/command.ts), and no file only passes
 * another's names on.
 */
const ROOT = REPO_ROOT;
const CLI = path.join(ROOT, 'src', 'cli');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

const IMPORT = /^\s*(?:import|export)\b[^'";]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/** The source files a file imports, in any way. */
function importsOf(file: string): string[] {
  return [...fs.readFileSync(file, 'utf8').matchAll(IMPORT)]
    .map((m) => path.resolve(path.dirname(file), (m[1] ?? m[2])!.replace(/\.js$/, '')))
    .flatMap((base) => [`${base}.ts`, path.join(base, 'index.ts')].filter((f) => fs.existsSync(f)).slice(0, 1));
}

/** The commands: the files the start-up's dispatch (the whole command line's and the lean one's) imports when a command runs. */
function commandFiles(): string[] {
  const dispatch = ['main.ts', 'lean.ts'].map((f) => path.join(CLI, 'start', f));
  const found = new Set<string>();
  for (const file of dispatch) for (const target of importsOf(file)) if (!target.startsWith(path.join(CLI, 'start') + path.sep) && !target.startsWith(path.join(CLI, 'shared') + path.sep) && target.startsWith(CLI + path.sep)) found.add(target);
  return [...found].sort();
}

const rel = (f: string) => path.relative(ROOT, f).split(path.sep).join('/');

describe('command line: rooms', () => {
  it('finds the commands from the dispatch tables (the checks below have something to check)', () => {
    const commands = commandFiles().map(rel);
    for (const f of ['src/cli/gate/stop.ts', 'src/cli/gate/install.ts', 'src/cli/gate/doctor.ts', 'src/cli/gate/blocked.ts', 'src/cli/commands/verify.ts', 'src/cli/commands/run.ts', 'src/cli/commands/loop.ts']) assert.ok(commands.includes(f), f);
  });

  it('no command imports another command', () => {
    const commands = new Set(commandFiles());
    const sideways = [...commands].flatMap((file) => importsOf(file).filter((t) => t !== file && commands.has(t)).map((t) => `${rel(file)} → ${rel(t)}`));
    assert.deepEqual(sideways, []);
  });

  it('only the command definition calls parseArgs: every command reads its arguments, says its usage and exits 2 through it', () => {
    const own = sourceFiles(CLI).filter((f) => /\bparseArgs\s*\(/.test(fs.readFileSync(f, 'utf8'))).map(rel);
    assert.deepEqual(own, ['src/cli/shared/command.ts']);
  });

  it('no file only re-exports another (a name kept where a module used to be)', () => {
    const shims = sourceFiles(CLI).filter((f) => {
      const code = fs.readFileSync(f, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      const reExports = /\bexport\s+(?:type\s+)?(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s+from\s+['"][^'"]+['"];?/g;
      return reExports.test(code) && code.replace(reExports, '').trim() === '';
    });
    assert.deepEqual(shims.map(rel), []);
  });
});
