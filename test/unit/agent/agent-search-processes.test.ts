import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { searchForAgent } from '../../../src/agent/workspace-search';
import type { ProcessRunner } from '../../../src/verify/process-runner';
import { runCommand } from '../../../src/verify/run-command';
import { runRipgrep } from '../../../src/verify/search-ripgrep';
import { testRipgrep } from '../support/verify-helpers';

/**
 * The agent's search tool starts ripgrep where its workspace says (issue 26): in the editor, the
 * window's process host (src/vscode/processes-host.ts), so a run's searches do not fork the
 * extension host.
 */
describe('agent: the search tool starts ripgrep from the workspace\'s process runner', () => {
  it('hands ripgrep to the runner it is given, and finds what ripgrep finds', async () => {
    const rg = testRipgrep();
    assert.ok(rg, 'no ripgrep: run node test/harness/setup.mjs');
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-search-runner-'));
    try {
      fs.mkdirSync(path.join(root, 'src'));
      fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export const needle = 1;\n');
      const asked: string[] = [];
      const runner: ProcessRunner = {
        runCommand: (o) => (asked.push(`command ${o.command}`), runCommand(o)),
        runRipgrep: (o) => (asked.push(`ripgrep ${o.rg}`), runRipgrep(o)),
      };
      const readFile = async (f: string) => fs.promises.readFile(path.join(root, f), 'utf8').catch(() => undefined);
      const hits = await searchForAgent({ root, ripgrepPath: rg, processes: runner, readFile }, 'needle', { limit: 10, signal: new AbortController().signal });
      assert.deepEqual(hits, [{ file: 'src/a.ts', line: 1, text: 'export const needle = 1;' }]);
      assert.deepEqual(asked, [`ripgrep ${rg}`]);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
