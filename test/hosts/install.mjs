// The host programs, pinned and installed from the npm registry into the ignored test cache
// (.vscode-test/hosts/<host>/), as test/harness/setup.mjs does for VS Code. A second run only
// checks. A host that cannot be installed or started is "not run", with why; never passed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../harness/paths.mjs';

export const hostsCache = join(cacheDir, 'hosts');

/** The pinned versions, checked on the registry on 2026-11-26. */
export const HOST_PACKAGES = {
  'claude-code': { spec: '@anthropic-ai/claude-code@2.1.332', bin: 'claude' },
  codex: { spec: '@openai/codex@0.171.0', bin: 'codex' },
  gemini: { spec: '@google/gemini-cli@0.61.0', bin: 'gemini' },
  qwen: { spec: '@qwen-code/qwen-code@0.24.4', bin: 'qwen' },
  copilot: { spec: '@github/copilot@1.0.102', bin: 'copilot' },
  opencode: { spec: 'opencode-ai@1.18.33', bin: 'opencode' },
  cline: { spec: 'cline@3.0.65', bin: 'cline' },
};

/**
 * The host's binary, installed when missing. `{ ok: false, why }` when it cannot be had.
 * @returns {{ ok: true, bin: string, folder: string } | { ok: false, why: string }}
 */
export function ensureHost(name) {
  const pkg = HOST_PACKAGES[name];
  const folder = join(hostsCache, name);
  const bin = join(folder, 'node_modules', '.bin', pkg.bin);
  const stamp = join(folder, `ready-${pkg.spec.replace(/[/@]/g, '_')}`);
  if (!existsSync(stamp) || !existsSync(bin)) {
    mkdirSync(folder, { recursive: true });
    const manifest = join(folder, 'package.json');
    if (!existsSync(manifest)) writeFileSync(manifest, `${JSON.stringify({ name: `cache-host-${name}`, private: true }, null, 2)}\n`);
    console.log(`[hosts] installing ${pkg.spec} into ${folder}`);
    const result = spawnSync('npm', ['install', '--prefix', folder, '--no-audit', '--no-fund', pkg.spec], { encoding: 'utf8', timeout: 10 * 60_000 });
    writeFileSync(join(folder, 'install.log'), `${result.stdout ?? ''}${result.stderr ?? ''}`);
    if (result.status !== 0 || !existsSync(bin)) return { ok: false, why: `npm install ${pkg.spec} failed (exit ${result.status}); see ${join(folder, 'install.log')}` };
    writeFileSync(stamp, `${new Date().toISOString()}\n`);
  }
  const version = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000, env: { ...process.env, HOME: join(folder, 'version-home') } });
  if (version.status !== 0) return { ok: false, why: `${pkg.bin} --version exited ${version.status}: ${(version.stderr || version.error?.message || '').slice(0, 300)}` };
  return { ok: true, bin, folder, version: /\d+\.\d+\.\d+/.exec(version.stdout)?.[0] ?? version.stdout.trim() };
}

export function installedVersion(name) {
  const pkg = HOST_PACKAGES[name];
  const file = join(hostsCache, name, 'node_modules', ...pkg.spec.replace(/@[^@/]+$/, '').split('/'), 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : undefined;
}
