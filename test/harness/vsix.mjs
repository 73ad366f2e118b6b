// The packaged extension: build the .vsix with `npm run package` and install it into a
// profile's extensions folder with code-server's launcher, as a user's install would.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeServerEntry, node24, repoRoot, vsixPath } from './paths.mjs';

function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: repoRoot, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    throw new Error(`\`${command} ${args.join(' ')}\` failed (exit ${result.status}):\n${result.stdout}${result.stderr}`);
  }
  return result.stdout;
}

export function packageVsix() {
  run('npm', ['run', 'package']);
  if (!existsSync(vsixPath)) throw new Error(`npm run package did not produce ${vsixPath}`);
  return { path: vsixPath, bytes: statSync(vsixPath).size };
}

export function installVsix(profile, vsix = vsixPath) {
  if (!existsSync(vsix)) throw new Error(`${vsix} is missing; run \`npm run package\` first`);
  // XDG_* keep code-server's default config file inside the throw-away profile.
  const env = { ...process.env, XDG_CONFIG_HOME: profile.root, XDG_DATA_HOME: profile.root };
  run(node24, [codeServerEntry, '--install-extension', vsix, '--extensions-dir', profile.extensionsDir, '--user-data-dir', profile.userDataDir], env);
}

/**
 * The scripted agent model (test/fixtures/scripted-agent-model), a test-only extension that
 * gives the chat view a model to answer with, installed beside the packaged extension.
 */
export function installScriptedAgentModel(profile) {
  const folder = 'ideal-state-tests.scripted-agent-model-0.0.1';
  const location = join(profile.extensionsDir, folder);
  cpSync(join(repoRoot, 'test', 'fixtures', 'scripted-agent-model'), location, { recursive: true });
  // VS Code loads the extensions its profile manifest lists, not every folder beside them.
  const manifest = join(profile.extensionsDir, 'extensions.json');
  const installed = existsSync(manifest) ? JSON.parse(readFileSync(manifest, 'utf8')) : [];
  installed.push({
    identifier: { id: 'ideal-state-tests.scripted-agent-model' },
    version: '0.0.1',
    location: { $mid: 1, path: location, scheme: 'file' },
    relativeLocation: folder,
    metadata: { installedTimestamp: Date.now(), source: 'resource' },
  });
  writeFileSync(manifest, JSON.stringify(installed));
}
