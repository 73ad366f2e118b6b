import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readHostConfig } from '../../../../../src/app/gate/doctor/host-config';
import { hostAdapter } from '../../../../../src/app/gate/hosts';

/**
 * `gate doctor` for Codex, Gemini CLI and Qwen Code reads their layers outside the workspace
 * (the user's, and the system's where there is one) and the keys in any layer that switch hooks
 * off. The home folder is the test's own.
 */
describe('gate doctor: the user-level layers of Codex, Gemini CLI and Qwen Code', () => {
  const tmp = (p: string) => fs.mkdtempSync(path.join(os.tmpdir(), p));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
  };
  const gateFor = (host: string, ws: string) => `${process.execPath} /opt/ideal-state/dist/cli.js gate --host ${host} --workspace ${ws} --deadline 600`;
  const groups = (command: string, event: string) => JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: 'command', command }] }] } });

  it('codex: a gate in ~/.codex/hooks.json (or CODEX_HOME) is found; [features] codex_hooks = false in the workspace turns it off, and the doctor names the sandbox', async () => {
    const ws = tmp('ideal-state-layers-ws-');
    const home = tmp('ideal-state-layers-home-');
    write(path.join(home, '.codex', 'hooks.json'), groups(gateFor('codex', ws), 'Stop'));
    const found = await readHostConfig(hostAdapter('codex')!, ws, { env: { HOME: home } });
    assert.equal(found?.installedIn, '~/.codex/hooks.json');
    assert.deepEqual(found?.neverRuns, []);
    assert.ok(found?.bypasses.some((b) => /codex_hooks = false.*workspace-write sandbox/.test(b)), found?.bypasses.join('\n'));

    write(path.join(ws, '.codex', 'config.toml'), '# the agent\'s\n[features]\ncodex_hooks = false\n');
    const off = await readHostConfig(hostAdapter('codex')!, ws, { env: { HOME: home } });
    assert.deepEqual(off?.neverRuns, ['features.codex_hooks = false in .codex/config.toml turns Codex\'s hooks off']);

    const codexHome = tmp('ideal-state-layers-codex-home-');
    write(path.join(codexHome, 'hooks.json'), groups(gateFor('codex', ws), 'Stop'));
    fs.rmSync(path.join(ws, '.codex'), { recursive: true });
    const moved = await readHostConfig(hostAdapter('codex')!, ws, { env: { HOME: tmp('ideal-state-layers-home-'), CODEX_HOME: codexHome } });
    assert.equal(moved?.installedIn, path.join(codexHome, 'hooks.json'));
  });

  it('codex: a user-level gate naming another workspace does not hold this one', async () => {
    const ws = tmp('ideal-state-layers-ws-');
    const home = tmp('ideal-state-layers-home-');
    write(path.join(home, '.codex', 'hooks.json'), groups(gateFor('codex', '/somewhere/else'), 'Stop'));
    const other = await readHostConfig(hostAdapter('codex')!, ws, { env: { HOME: home } });
    assert.match(other?.neverRuns.join('\n') ?? '', /the gate in ~\/\.codex\/hooks\.json holds another workspace/);
  });

  it('gemini: a gate in ~/.gemini/settings.json; hooksConfig.enabled false in the workspace (over the user layer) or the gate in hooksConfig.disabled turns it off', async () => {
    const ws = tmp('ideal-state-layers-ws-');
    const home = tmp('ideal-state-layers-home-');
    const command = gateFor('gemini', ws);
    write(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ ...JSON.parse(groups(command, 'AfterAgent')), hooksConfig: { enabled: true } }));
    const env = { HOME: home, GEMINI_CLI_SYSTEM_SETTINGS_PATH: path.join(home, 'no-system.json') };
    const found = await readHostConfig(hostAdapter('gemini')!, ws, { env });
    assert.equal(found?.installedIn, '~/.gemini/settings.json');
    assert.deepEqual(found?.neverRuns, []);
    assert.ok(found?.bypasses.some((b) => /\.gemini\/settings\.json is in the workspace: a `hooksConfig\.enabled: false`/.test(b)));

    write(path.join(ws, '.gemini', 'settings.json'), JSON.stringify({ hooksConfig: { enabled: false } }));
    const off = await readHostConfig(hostAdapter('gemini')!, ws, { env });
    assert.deepEqual(off?.neverRuns, ['hooksConfig.enabled: false in .gemini/settings.json turns Gemini CLI\'s hooks off']);

    write(path.join(ws, '.gemini', 'settings.json'), JSON.stringify({ hooksConfig: { disabled: [command] } }));
    const disabled = await readHostConfig(hostAdapter('gemini')!, ws, { env });
    assert.deepEqual(disabled?.neverRuns, ['hooksConfig.disabled in .gemini/settings.json names the gate']);
  });

  it('qwen: a gate in ~/.qwen/settings.json; disableAllHooks in the workspace turns it off; stopHookBlockingCap is named', async () => {
    const ws = tmp('ideal-state-layers-ws-');
    const home = tmp('ideal-state-layers-home-');
    write(path.join(home, '.qwen', 'settings.json'), groups(gateFor('qwen', ws), 'Stop'));
    const env = { HOME: home, QWEN_CODE_SYSTEM_SETTINGS_PATH: path.join(home, 'no-system.json') };
    assert.deepEqual((await readHostConfig(hostAdapter('qwen')!, ws, { env }))?.neverRuns, []);
    write(path.join(ws, '.qwen', 'settings.json'), JSON.stringify({ disableAllHooks: true, stopHookBlockingCap: 1 }));
    const off = await readHostConfig(hostAdapter('qwen')!, ws, { env });
    assert.deepEqual(off?.neverRuns, ['disableAllHooks in .qwen/settings.json turns Qwen Code\'s hooks off']);
    assert.ok(off?.notes.some((n) => /stopHookBlockingCap: 1 in \.qwen\/settings\.json/.test(n)));
  });
});
