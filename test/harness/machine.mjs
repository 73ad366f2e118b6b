// Which setup a run is on, in one line for the top and the end of `npm test`: the Node the
// tiers run under, where `rg` came from (or none) and where Chromium came from. A failure
// report then says the machine it happened on (Debian's ripgrep in /usr/bin beside node
// once broke a stage that no machine the suite had run on could show).
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from './hide-program.mjs';
import { cacheDir, chromiumPath, node24, repoRoot } from './paths.mjs';

/** The first line a program prints for `args`, or undefined when it does not start. */
function firstLine(program, args, env) {
  const r = spawnSync(program, args, { encoding: 'utf8', timeout: 15_000, env });
  if (r.status !== 0) return undefined;
  return `${r.stdout}`.trim().split('\n')[0];
}

/** Who put a file there: a Debian (dpkg) package, the test cache (.vscode-test), or neither. */
export function origin(file) {
  let real = file;
  try {
    real = realpathSync(file);
  } catch {
    return 'missing';
  }
  if (real.startsWith(`${cacheDir}/`)) return 'the test cache, .vscode-test/';
  if (real.startsWith(`${repoRoot}/node_modules/`)) return "the project's node_modules";
  for (const candidate of new Set([file, real])) {
    const owner = spawnSync('dpkg-query', ['-S', candidate], { encoding: 'utf8' });
    if (owner.status === 0) {
      const pkg = owner.stdout.split(':')[0].trim();
      const version = spawnSync('dpkg-query', ['-W', '-f=${Version}', pkg], { encoding: 'utf8' }).stdout.trim();
      return `dpkg package ${pkg}${version ? ` ${version}` : ''}`;
    }
  }
  return 'no package (installed by hand or by a version manager)';
}

/**
 * The setup as the tiers see it under `env`: `node` and `rg` as PATH finds them (mocha and the
 * command line start from PATH, not from this process), VS Code's Node 24 and Chromium.
 */
export function describeMachine(env = process.env) {
  const PATH = env.PATH ?? '';
  const node = findOnPath('node', PATH);
  const nodeLine = node ? `Node ${firstLine(node, ['--version'], env) ?? '(does not start)'} at ${node} (${origin(node)})` : 'Node: none on PATH';
  const rg = findOnPath('rg', PATH);
  const cached = cachedRipgrep();
  const compared = cached ? `; the unit tier compares its search with VS Code's copy, ${cached}` : '; no VS Code copy in .vscode-test/ either';
  const rgLine = rg ? `rg ${rg} (${firstLine(rg, ['--version'], env) ?? 'does not start'}; ${origin(rg)})` : `rg: none on PATH (the command line uses its built-in search${compared})`;
  const chromium = existsSync(chromiumPath) ? `Chromium ${chromiumPath} (${origin(chromiumPath)})` : `Chromium: none at ${chromiumPath}`;
  const vscodeNode = existsSync(node24) ? `VS Code's server on Node ${firstLine(node24, ['--version'], env) ?? '?'} (${origin(node24)})` : "VS Code's Node 24: not set up";
  return { node, rg, line: `${nodeLine}; ${rgLine}; ${chromium}; ${vscodeNode}` };
}

/** VS Code's ripgrep in the test cache, which the unit tier's GREP comparisons use when PATH has none. */
export function cachedRipgrep() {
  const arch = process.arch === 'x64' ? 'x64' : process.arch;
  const base = join(cacheDir, 'vscode', 'node_modules', 'code-server', 'lib', 'vscode', 'node_modules', '@vscode');
  return [join(base, 'ripgrep-universal', 'bin', `${process.platform}-${arch}`, 'rg'), join(base, 'ripgrep', 'bin', 'rg')].find((f) => existsSync(f));
}
