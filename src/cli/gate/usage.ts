import { GATE_HOSTS, HOST_ADAPTERS } from '../../app/gate/hosts';
import { VERIFY_COMMANDS_FILE } from '../../verify/verify-commands-file';

/**
 * What the gate's commands say about themselves: each one's section, printed after its usage
 * errors and for its --help. In one file because `gate --help` prints the install's too, and no
 * command imports another.
 */

export const GATE_USAGE = `Usage: ideal-state gate [options]          (run by an agent host's stop hook)
       ideal-state gate install <host>|--detect [--yes] [--command CMD] [--workspace DIR]
       ideal-state gate doctor [--workspace DIR]   (each host's effective hook settings, a dry stop
                                  through them, and the ways around the gate)
       ideal-state gate blocked --reason TEXT [--tried TEXT] [--workspace DIR]
                                  (the agent cannot finish: its next stop is BLOCKED, not done)

Reads the stop hook payload an agent host sends on stdin, verifies the workspace's PRD and
answers in that host's format: the agent keeps working, told which CRITICAL criteria fail
and what each needs, or it may stop when every CRITICAL criterion passes.
Hosts: ${GATE_HOSTS.join(', ')}.

Options:
  --host HOST        the host that runs the hook (default: told by the payload's shape)
  --prd FILE         the PRD to hold the agent to where nothing is locked (where a person
                     locked PRDs, held as well), relative to the workspace. Default: every PRD
                     a person locked; where none is, the PRD of the person's session as when
                     the person last spoke (the one the prompt names, else the newest
                     unfinished one; idealState.gate.prd names it instead); else the newest
                     unfinished PRD in the PRD folder
  --workspace DIR    the workspace (default: the host's project folder variable, e.g.
                     CLAUDE_PROJECT_DIR, else the current directory; never the payload's cwd)
  --user-level       the hook lives in the user's or managed settings (gate install --scope):
                     a stop whose session is outside --workspace goes through untouched
  --prompt           the host's prompt-submit hook: record the session baseline (the
                     criteria as the person last saw them); the payload's UserPromptSubmit
                     or SessionStart event says the same
  --max-blocks N     stops kept from happening in a row before the agent may stop anyway,
                     with a warning (default 3); counted per session beside the criteria lock
  --timeout SECONDS  per criterion (default 120)
  --deadline SECONDS how long the host waits for the hook (written by gate install; default:
                     the host's own); the gate answers before it, blocking when unfinished
  --yes              run every PRD command (default: only those ${VERIFY_COMMANDS_FILE} allows)
  --no-log           write nothing into the PRD (default: outcomes and a LOG entry per verdict)
  --store FILE       the store for the verification report; --no-store for none

A host that says the agent is continuing because of a stop hook (stop_hook_active) counts
toward --max-blocks; one that says it is not (the user spoke since) starts a new count.
`;

export const GATE_INSTALL_USAGE = `Usage: ideal-state gate install <host> [options]
       ideal-state gate install --detect [options]

Writes the stop hook that runs \`ideal-state gate\` into the workspace, in the host's own
configuration, keeping everything already there, and the host's MCP entry for
\`ideal-state mcp\`. Shows the changes first and asks (--yes writes without asking; without a
terminal, nothing is written unless --yes is given). The hook's command is run once first
(\`LAUNCHER --version\`): one that does not start Ideal State is refused (with --command: warned).
Then names the host's trust step.
${HOST_ADAPTERS.map((h) => `  ${h.id.padEnd(12)} ${h.install.kind === 'none' ? `no hook: ${h.install.why}` : `${h.install.file}${'events' in h.install ? `  hooks.${h.install.events.join(', hooks.')}` : ''}`}`).join('\n')}

Options:
  --detect          install for every host whose configuration folder exists in the workspace
  --sandbox         with --scope user or managed: turn Claude Code's sandbox on there, so the deny
                    rules bind the agent's shell too (macOS; Linux with bubblewrap and socat)
  --scope SCOPE     where the hook lives: workspace (default: the host's file in the workspace,
                    which the agent can write; the risk is said at install), user (outside the
                    workspace: Claude Code's CLAUDE_CONFIG_DIR or ~/.claude/settings.json, with
                    deny rules for the workspace's .claude settings and the gate's state folder;
                    Codex's $CODEX_HOME/hooks.json; ~/.gemini/settings.json; ~/.qwen/settings.json)
                    or managed (Claude Code only: a drop-in in its managed-settings.d, which no
                    workspace setting turns off; needs administrator rights). A workspace setting
                    can still turn a user-level hook off: each install says which. The hook names
                    --workspace, and a stop in another project goes through untouched.
  --workspace DIR   the workspace (default: the current directory); written into the command
  --command CMD     how the hook starts Ideal State (default: the absolute paths of the Node
                    running this install and of its dist/cli.js, never looked up on PATH);
                    a command found through the workspace ("npx ideal-state", a path in it,
                    node_modules/.bin on PATH) is never written: it is replaced by those
                    absolute paths, said, or refused when this install runs from the workspace
  --max-blocks N    passed on to the gate (default: the gate's, 3)
  --no-mcp          write only the hook, not the MCP entry
  --yes             write without asking
`;

export const GATE_DOCTOR_USAGE = `Usage: ideal-state gate doctor [--workspace DIR]

For each host whose configuration names the gate, reads it the way the host does (for Claude
Code every settings layer: managed, .claude/settings.local.json, .claude/settings.json,
~/.claude/settings.json or CLAUDE_CONFIG_DIR, managed-settings.d; disableAllHooks, the exact
Stop key, the other Stop hooks, env; for Codex, Gemini CLI and Qwen Code their user and system
layers and the keys that switch hooks off), and
only if the host would run the gate, runs that exact command line once with the host's
environment and a payload in its shape (a dry stop: --no-log --no-store, nothing written). Says
whether the host would block its agent now, why, and each way around the gate on this machine.
`;

export const GATE_BLOCKED_USAGE = `Usage: ideal-state gate blocked --reason TEXT [--tried TEXT] [--workspace DIR]

For the agent under the done gate: it cannot make the criteria pass without weakening a check,
and says so instead. Its next stop is let through once as BLOCKED, never as done: the PRD's
status becomes BLOCKED, its LOG and the host's warning say why, and the criteria stay unmet for
the person to look at.

Options:
  --reason TEXT      what is in the way (required)
  --tried TEXT       what was tried
  --workspace DIR    the workspace (default: the current directory)
`;
