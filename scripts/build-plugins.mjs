// Each agent host's own package of the done gate, built from this repository's bundles
// (after `node esbuild.mjs`), into out/plugins/ (build output, never committed):
//
//   out/plugins/claude-code/                     a Claude Code marketplace (`claude plugin marketplace add DIR`)
//     .claude-plugin/marketplace.json
//     ideal-state/                               the plugin (`claude --plugin-dir DIR/ideal-state`)
//       .claude-plugin/plugin.json  hooks/hooks.json  .mcp.json  dist/  isc-definitions/  package.json
//   out/plugins/gemini/ideal-state/              a Gemini CLI extension (`gemini extensions install DIR`)
//     gemini-extension.json  hooks/hooks.json  dist/  isc-definitions/  package.json
//   out/plugins/copilot/ideal-state/             a Copilot CLI plugin (`copilot plugin install DIR`, `copilot --plugin-dir DIR`)
//     plugin.json  hooks.json  dist/  isc-definitions/  package.json
//   out/plugins/codex/                           a Codex marketplace (`codex plugin marketplace add DIR`)
//     .agents/plugins/marketplace.json
//     ideal-state/.codex-plugin/plugin.json  ideal-state/hooks/hooks.json  dist/  isc-definitions/  package.json
//
// Each carries the command line itself (the same files as the npm package's dist/), so it
// needs nothing but Node 20 or later on the PATH the host gives its hooks.
//
//   node scripts/build-plugins.mjs [--out DIR]
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outArg = process.argv.indexOf('--out');
const out = resolve(outArg > 0 ? process.argv[outArg + 1] : join(root, 'out', 'plugins'));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { version, license } = manifest;
const DESCRIPTION = 'The done gate: keeps the agent working while a CRITICAL criterion of the PRD fails, and the Ideal State MCP tools (criteria, verify, propose_criteria).';
/** Seconds the host waits for the gate; the gate answers inside it (the same number gate install writes). */
const TIMEOUT_SECONDS = 600;

/** The command line's run-time files: what the npm package's `files` list ships of dist/. */
function copyCommandLine(into) {
  mkdirSync(join(into, 'dist'), { recursive: true });
  const dist = join(root, 'dist');
  if (!existsSync(join(dist, 'cli.js'))) throw new Error(`${join(dist, 'cli.js')} is missing: run \`node esbuild.mjs\` first`);
  for (const name of readdirSync(dist)) {
    if (/^(cli\.js|cli\.mjs|cli-[\w-]+\.mjs|cli-lean\.cjs|process-host\.cjs|sql-wasm\.wasm)$/.test(name)) cpSync(join(dist, name), join(into, 'dist', name));
  }
  cpSync(join(root, 'isc-definitions'), join(into, 'isc-definitions'), { recursive: true, filter: (f) => !f.endsWith('.md') });
  for (const f of ['README.md', 'LICENSE']) cpSync(join(root, f), join(into, f));
  // `--version` and the gate's records read the version from the package.json beside dist/.
  writeJson(join(into, 'package.json'), { name: manifest.name, version, license, private: true });
}

function writeJson(file, value) {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A gate hook entry in Claude Code's shape (https://code.claude.com/docs/en/hooks "Configuration"). */
const gateHook = (command) => [{ hooks: [{ type: 'command', command, timeout: TIMEOUT_SECONDS }] }];

/**
 * Claude Code: the plugin (https://code.claude.com/docs/en/plugins-reference: `.claude-plugin/plugin.json`
 * the manifest, `hooks/hooks.json` and `.mcp.json` at the plugin's root, `${CLAUDE_PLUGIN_ROOT}` its
 * installed folder) and a marketplace listing it (https://code.claude.com/docs/en/plugin-marketplaces).
 * The gate finds the project from CLAUDE_PROJECT_DIR, which Claude Code sets for its hooks.
 */
function claudeCode() {
  const market = join(out, 'claude-code');
  const plugin = join(market, 'ideal-state');
  copyCommandLine(plugin);
  writeJson(join(plugin, '.claude-plugin', 'plugin.json'), {
    name: 'ideal-state',
    version,
    description: DESCRIPTION,
    author: { name: 'The Ideal State authors' },
    license,
    keywords: ['stop-hook', 'verification', 'criteria', 'mcp'],
  });
  const gate = `node "\${CLAUDE_PLUGIN_ROOT}/dist/cli.js" gate --host claude-code --deadline ${TIMEOUT_SECONDS}`;
  writeJson(join(plugin, 'hooks', 'hooks.json'), {
    description: 'Ideal State done gate: Stop and SubagentStop are blocked while a CRITICAL criterion fails; UserPromptSubmit records the session baseline.',
    hooks: { Stop: gateHook(gate), SubagentStop: gateHook(gate), UserPromptSubmit: gateHook(gate) },
  });
  // Claude Code names a plugin's tools mcp__plugin_<plugin>_<server>__<tool>, and the Anthropic
  // API refuses a tool name past 64 characters: under the server name `ideal-state` the
  // propose_criteria tool's was 67, and every request of the session was refused. `criteria`
  // keeps the longest at 62.
  writeJson(join(plugin, '.mcp.json'), { mcpServers: { criteria: { command: 'node', args: ['${CLAUDE_PLUGIN_ROOT}/dist/cli.js', 'mcp'] } } });
  writeJson(join(market, '.claude-plugin', 'marketplace.json'), {
    name: 'ideal-state',
    owner: { name: 'The Ideal State authors' },
    plugins: [{ name: 'ideal-state', source: './ideal-state', description: DESCRIPTION, version }],
  });
  return plugin;
}

/**
 * Gemini CLI: an extension (`gemini-extension.json` with its MCP server, `${extensionPath}` its
 * installed folder; `hooks/hooks.json`, `{ hooks: { Event: [...] } }` in the settings' hooks
 * shape, its strings hydrated with `${extensionPath}`, as Gemini CLI 0.61's extension manager
 * reads them: https://geminicli.com/docs/extensions/reference). The gate's event is AfterAgent,
 * as `gate install gemini` writes it, in milliseconds; BeforeAgent records the session baseline.
 */
function gemini() {
  const extension = join(out, 'gemini', 'ideal-state');
  copyCommandLine(extension);
  writeJson(join(extension, 'gemini-extension.json'), {
    name: 'ideal-state',
    version,
    description: DESCRIPTION,
    mcpServers: { 'ideal-state': { command: 'node', args: ['${extensionPath}/dist/cli.js', 'mcp'] } },
  });
  const gate = `node "\${extensionPath}/dist/cli.js" gate --host gemini --deadline ${TIMEOUT_SECONDS}`;
  const hook = [{ hooks: [{ type: 'command', command: gate, timeout: TIMEOUT_SECONDS * 1000 }] }];
  writeJson(join(extension, 'hooks', 'hooks.json'), { hooks: { AfterAgent: hook, BeforeAgent: hook } });
  return extension;
}

/**
 * Copilot CLI: a plugin (https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/plugins-creating:
 * `plugin.json` at the root naming its `hooks.json`, in Copilot's hooks format
 * (https://docs.github.com/en/copilot/reference/hooks-reference): agentStop, and
 * userPromptSubmitted with `--prompt` for the session baseline, as `gate install copilot` writes
 * them. Copilot CLI 1.0.102 runs a plugin's hooks in the plugin's own folder with
 * COPILOT_PLUGIN_ROOT and COPILOT_PROJECT_DIR set (measured), so the command names both. No MCP
 * entry: whether Copilot CLI expands a variable in a plugin's MCP arguments is not measured here;
 * `gate install copilot` writes the MCP server into the project's .mcp.json.
 */
function copilot() {
  const plugin = join(out, 'copilot', 'ideal-state');
  copyCommandLine(plugin);
  writeJson(join(plugin, 'plugin.json'), {
    name: 'ideal-state',
    version,
    description: DESCRIPTION,
    author: { name: 'The Ideal State authors' },
    license,
    hooks: 'hooks.json',
  });
  const gate = `node "$COPILOT_PLUGIN_ROOT/dist/cli.js" gate --host copilot --workspace "$COPILOT_PROJECT_DIR" --deadline ${TIMEOUT_SECONDS}`;
  writeJson(join(plugin, 'hooks.json'), {
    version: 1,
    hooks: {
      agentStop: [{ type: 'command', bash: gate, timeoutSec: TIMEOUT_SECONDS }],
      userPromptSubmitted: [{ type: 'command', bash: `${gate} --prompt`, timeoutSec: TIMEOUT_SECONDS }],
    },
  });
  return plugin;
}

/**
 * Codex: a plugin (https://developers.openai.com/codex/plugins/build: `.codex-plugin/plugin.json`
 * naming its hooks file, in Claude Code's hooks shape, which Codex reads) and a local
 * marketplace listing it (`.agents/plugins/marketplace.json`, each source a `./` path).
 * Codex 0.171 runs a plugin's hooks in the project with PLUGIN_ROOT set to the installed plugin
 * (measured), and asks the person to trust a new hook (/hooks) before it runs. No MCP entry:
 * `gate install codex` writes the server into the project's .codex/config.toml.
 */
function codex() {
  const market = join(out, 'codex');
  const plugin = join(market, 'ideal-state');
  copyCommandLine(plugin);
  writeJson(join(plugin, '.codex-plugin', 'plugin.json'), {
    name: 'ideal-state',
    version,
    description: DESCRIPTION,
    author: { name: 'The Ideal State authors' },
    license,
    hooks: './hooks/hooks.json',
  });
  const gate = `node "$PLUGIN_ROOT/dist/cli.js" gate --host codex --deadline ${TIMEOUT_SECONDS}`;
  writeJson(join(plugin, 'hooks', 'hooks.json'), { hooks: { Stop: gateHook(gate), UserPromptSubmit: gateHook(gate) } });
  writeJson(join(market, '.agents', 'plugins', 'marketplace.json'), {
    name: 'ideal-state',
    interface: { displayName: 'Ideal State' },
    plugins: [{ name: 'ideal-state', source: { source: 'local', path: './ideal-state' }, policy: { installation: 'AVAILABLE', authentication: 'ON_INSTALL' }, category: 'Productivity' }],
  });
  return plugin;
}

rmSync(out, { recursive: true, force: true });
const built = [claudeCode(), gemini(), copilot(), codex()];
for (const dir of built) console.log(`built ${dir}`);
