// The packaged extension: build the .vsix with `npm run package` and install it into a
// profile's extensions folder with code-server's launcher, as a user's install would.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
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
