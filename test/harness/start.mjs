// `npm start`: try the extension by hand. With desktop `code` on PATH, installs the
// packaged .vsix there and opens the sample workspace; otherwise builds, starts the real
// VS Code server (trusted, extension loaded from this repository) and prints its URL.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, sampleWorkspace, vsixPath } from './paths.mjs';
import { copySampleWorkspace, DEMO_SETTINGS, makeProfile, startServer } from './server.mjs';
import { setup } from './setup.mjs';

function run(command, args) {
  const result = spawnSync(command, args, { cwd: repoRoot, stdio: 'inherit' });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const hasDesktopCode = spawnSync('code', ['--version'], { stdio: 'ignore' }).status === 0;
if (hasDesktopCode) {
  run('npm', ['run', 'package']);
  run('code', ['--install-extension', vsixPath, '--force']);
  run('code', [sampleWorkspace]);
} else {
  run('node', ['esbuild.mjs']);
  await setup();
  // The sample's scripted demo model, so a first run needs no API key (README: Your first run).
  const profile = makeProfile({ trusted: true, settings: DEMO_SETTINGS });
  // A copy, so what you do in the window never dirties the repository's fixture.
  const workspace = copySampleWorkspace(profile);
  const server = await startServer({ profile, logFile: join(profile.root, 'server.log') });
  const url = server.url(workspace, [['extensionDevelopmentPath', server.remoteUri(repoRoot)]]);
  let stopping = false;
  const stop = async () => {
    stopping = true;
    await server.stop();
    // What a person did in the window (files, PRDs, runs in the store) is theirs: stopping keeps
    // it and says where, and the next start opens a fresh copy.
    console.log(`\nstopped. Nothing was deleted: the workspace copy (${workspace}) and the store of its runs`);
    console.log(`(under ${profile.userDataDir}) are kept in ${profile.root}; delete that folder when you no longer need it.`);
    console.log('The next npm start opens a fresh copy of the sample workspace.');
    process.exit(0);
  };
  // Before the URL is printed: whoever reads it may press Ctrl-C at once, and a signal that came
  // before its handler would end the process without a word.
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  console.log(`\nIdeal State is running in a real VS Code — open this in a browser:\n\n  ${url}\n`);
  console.log(`workspace: ${workspace} (a copy of test/fixtures/sample-workspace)`);
  console.log(`server log: ${join(profile.root, 'server.log')}; press Ctrl-C to stop`);
  await server.exited;
  if (stopping) await new Promise(() => {}); // stop() exits the process
  console.error('the VS Code server stopped');
  process.exitCode = 1;
}
