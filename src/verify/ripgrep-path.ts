import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';

/**
 * Which ripgrep a GREP uses: the one the host names (VS Code's bundled copy), else `rg` on
 * PATH, else none (the JS search). Looked up once per path: the answer does not change
 * during a session.
 */
const cache = new Map<string, string | undefined>();

export function findRipgrep(hostPath: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const key = `${hostPath ?? ''}|${env.PATH ?? ''}`;
  if (cache.has(key)) return cache.get(key);
  const candidates = [...(hostPath ? [hostPath] : []), ...(env.PATH ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.join(dir, process.platform === 'win32' ? 'rg.exe' : 'rg'))];
  const found = candidates.find(isExecutable);
  cache.set(key, found);
  return found;
}

/**
 * Where VS Code keeps its ripgrep under its `appRoot` (`vscode.env.appRoot`): newer
 * versions ship `@vscode/ripgrep-universal/bin/<platform>-<arch>/rg`, older ones
 * `@vscode/ripgrep/bin/rg`. The first that exists, if any.
 */
export function bundledRipgrep(appRoot: string, platform: string = process.platform, arch: string = process.arch): string | undefined {
  const exe = platform === 'win32' ? 'rg.exe' : 'rg';
  const modules = [path.join(appRoot, 'node_modules'), path.join(appRoot, 'node_modules.asar.unpacked')];
  const candidates = modules.flatMap((m) => [path.join(m, '@vscode', 'ripgrep-universal', 'bin', `${platform}-${arch}`, exe), path.join(m, '@vscode', 'ripgrep', 'bin', exe)]);
  return candidates.find(isExecutable);
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
