// Starts VS Code's own server (from the code-server package) on a free loopback port
// with throw-away user-data and extensions folders, and stops it with its children.
import { spawn } from 'node:child_process';
import { cpSync, createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { node24, sampleWorkspace, serverMain } from './paths.mjs';

const READY_LINE = /Extension host agent listening on (\d+)/;

export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The sample workspace's scripted demo model (no API key needed), as `npm start` sets it up;
 * the first-run e2e test uses the same, as a person following the README would have it.
 */
export const DEMO_SETTINGS = { 'idealState.models.configFile': '.ideal-state/demo/models.yaml' };

/** A fresh pair of folders; `trusted` turns workspace trust off so no Restricted Mode; `settings` are added to the user settings. */
export function makeProfile({ trusted, settings: extra = {} }) {
  const root = mkdtempSync(join(tmpdir(), 'ideal-state-vscode-'));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  const settings = { 'workbench.startupEditor': 'none', 'telemetry.telemetryLevel': 'off', ...extra };
  if (trusted) settings['security.workspace.trust.enabled'] = false;
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
  return { root, userDataDir, extensionsDir };
}

/** A copy of the sample workspace inside the profile, so tests never dirty the repository. */
export function copySampleWorkspace(profile) {
  const folder = join(profile.root, 'sample-workspace');
  cpSync(sampleWorkspace, folder, { recursive: true });
  return folder;
}

export function removeProfile(profile) {
  rmSync(profile.root, { recursive: true, force: true });
}

/**
 * Starts the server and resolves once it listens. `env` is added to the server's
 * environment, which the extension host inherits. Reuse `port` to reopen the same
 * workspace: the workspace storage folder is keyed by the vscode-remote URI, port included.
 */
export async function startServer({ profile, env = {}, logFile, port, timeoutMs = 60_000 }) {
  port ??= await freePort();
  const args = [
    serverMain,
    '--host', '127.0.0.1',
    '--port', String(port),
    '--without-connection-token',
    '--accept-server-license-terms',
    '--enable-smoke-test-driver',
    '--extensions-dir', profile.extensionsDir,
    '--user-data-dir', profile.userDataDir,
  ];
  const child = spawn(node24, args, {
    // No model keys leak in from the developer's shell: tests set what they need.
    env: { ...withoutModelKeys(process.env), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // own process group, so stop() also ends the extension host and pty host
  });
  const log = createWriteStream(logFile ?? join(profile.root, 'server.log'), { flags: 'a' });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  const ready = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`VS Code server did not start within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk) => {
      log.write(chunk);
      output += chunk.toString();
      if (READY_LINE.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then(({ code, signal }) => {
      clearTimeout(timer);
      reject(new Error(`VS Code server exited (code ${code}, signal ${signal}) before it listened:\n${output}`));
    });
  });
  await ready;

  const origin = `http://127.0.0.1:${port}`;
  return {
    port,
    origin,
    profile,
    exited,
    output: () => output,
    /** Workbench URL for a folder, optionally with extension-development parameters. */
    url(folder, payload) {
      const query = new URLSearchParams({ folder });
      if (payload) query.set('payload', JSON.stringify(payload));
      return `${origin}/?${query}`;
    },
    /** A path on the server as the workbench sees it. */
    remoteUri(path) {
      return `vscode-remote://127.0.0.1:${port}${path}`;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        try {
          process.kill(-child.pid, 'SIGTERM');
        } catch {
          // already gone
        }
        const killTimer = setTimeout(() => {
          try {
            process.kill(-child.pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 5_000);
        await exited;
        clearTimeout(killTimer);
      }
      log.end();
    },
  };
}

function withoutModelKeys(env) {
  const { OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_BASE_URL, ...rest } = env;
  return rest;
}
