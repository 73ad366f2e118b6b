/**
 * What the command line says about its commands, in one place: each command's section (printed
 * after its usage errors and for its --help), and the whole usage. Plain text, no imports, so
 * the start-up can print it without loading any command.
 */

export const RUN_USAGE = `  run "REQUEST" [--effort LEVEL|AUTO]   run The Algorithm on a request in the workspace
  run --prd FILE [--effort LEVEL]        run it on a PRD: its criteria are the spec
  run --resume RUN_ID                    continue a run from its last committed step
  bundle RUN_ID --out DIR                export a run bundle (manifest, artifacts, PRD, reports, events)
  undo RUN_ID                            put back every file the run changed (its PRD too), as it was before

Run options:
  --approve edits,commands   approve the agent's edits and/or commands without asking (never a change
                             to configuration such as .vscode or .ideal-state: asked each time)
  --model M                  model name (or configured model id)
  --provider P               openai | anthropic | scripted (with --script FILE, labelled scripted)
  --trust-workspace          use the workspace's models file, capabilities, phase graph and roles for this
                             invocation without \`ideal-state trust\` (a models file still names only
                             OPENAI_API_KEY, ANTHROPIC_API_KEY or IDEAL_STATE_<NAME>_KEY)
  Exit codes: 0 COMPLETE, 1 FAILED, 2 usage error, 3 BUDGET_EXHAUSTED, 4 BLOCKED, 5 store busy (another
  process is writing the store; nothing was run), 130 CANCELLED.`;

export const LOOP_USAGE = `  loop --glob GLOB --isc TYPE [--agents N] [--effort LEVEL] [--max-iterations N] [--verify-only]
                                         the Algorithm over every file GLOB matches, against ISC template TYPE
  loop --shard I/N --out FILE ...        only the I-th of N deterministic shards; its results into FILE
  loop --resume LOOP_ID                  go on with a stopped loop (acknowledged results are kept)
  loop merge FILE... [--out REPORT] [--prd]
                                         combine shard files into one report (and the loop PRD)

Loop options:
  --agents N          agents working at once (at most the effort level's parallelism; default that)
  --max-iterations N  iterations before the loop ends FAILED (default 5); effort decays after the third
  --budget SECONDS    the loop's time budget (default: the level's budget per round of agents)
  --verify-only       verify, never work (what a CI shard does)
  --started-by schedule:NAME
                      record the loop as started by that schedule (what a written schedule passes)
  --provider scripted --script FILE
                      the script is one artifact's sub-run, replayed for each (\${file} and \${name} substituted)
  Exit codes: 0 COMPLETE, 1 FAILED, 2 usage error, 3 BUDGET_EXHAUSTED, 5 store busy, 130 CANCELLED.`;

export const MODELS_USAGE = `  models check [--effort LEVEL] [--model M] [--provider P] [--json]
                 one tiny call of each shape the product makes (structured output, a tool call)
                 on the model of every role, resolved as \`run\` resolves them: what works, what
                 was adapted, what to change. Exit 0 every role works, 1 one does not, 2 usage
                 or configuration error. --effort defaults to STANDARD; --provider openai|anthropic.
                 The workspace's models file, capabilities and roles count once trusted (ideal-state
                 trust), or with --trust-workspace for this invocation.`;

export const LEARNING_USAGE = `  ratings import FILE        add a PAI ratings.jsonl to the store (bad lines reported, re-import adds nothing)
  ratings export [--out F]   the store's ratings as PAI ratings.jsonl
  ratings stats [--json]     count, rolling average of the last 10, trend ↑ ↓ →
  reflections import FILE    add a PAI algorithm-reflections.jsonl
  reflections export [--out F]
  reflections mine [--json]  cluster reflections into themes`;

export const TRUST_USAGE = `  trust [FILE…]              trust the current content of the workspace's configuration
                             (default: every one present): .ideal-state/models.yaml,
                             capabilities.yaml, phase-graph.yaml and roles/*.yaml. Shows each file,
                             its SHA-256 and what it names (servers, key variables, tools, prompts);
                             remembered under the user data folder, like \`direnv allow\`. Until then
                             run and models check ignore the file and say so; a changed file is
                             untrusted again. --trust-workspace on those commands: this once.
  trust --list               every trusted file: trusted, changed or missing
  trust --revoke [FILE…]     forget the trust (default: every file of the workspace)`;

export const CRITERIA_USAGE = `  criteria lock [FILE…]      lock a PRD's criteria: the done gate holds an agent to them. Without
                             FILE: the one unfinished PRD with criteria, else asks which (without
                             a terminal: exit 2, naming them). Asks y/N for each PRD on the terminal
  criteria approve [FILE…]   approve changes to locked criteria and their inputs as a new
                             criteria version, logged in the PRD; asks on the terminal
  criteria status [--json]   what is locked, and what changed since (exit 1 when something did)
                             lock and approve ask on the controlling terminal and refuse without
                             one (exit 3): an agent's shell has none. There is no --yes.`;

export const CRITERIA_PENDING_USAGE = `Usage: ideal-state criteria pending [--workspace DIR]

Shows each criteria proposal an agent made through the MCP server that waits for a person,
exactly as it would be written, and asks on this terminal whether to add it; then asks about
each command such criteria would run, which never runs until a person allows it here. It asks
on the controlling terminal (/dev/tty) and refuses without one: an agent's shell has none.
`;

export const MCP_USAGE = `Usage: ideal-state mcp [--workspace DIR] [--store FILE | --no-store]

An MCP server over stdio (for Claude Code, Cline, Cursor, Codex, VS Code agents) with three
tools: ideal-state_criteria, ideal-state_verify and ideal-state_propose_criteria, and the
workspace's PRDs as resources. Everything it reads, verifies or writes is inside the
workspace. PRD commands run as \`ideal-state verify\` runs them without a terminal: only
those .ideal-state/verify-commands.yaml allows, and never one a proposed criterion brought
until a person allows it. Proposed criteria are written only when a person accepts them (in
the client's dialog, or with \`ideal-state criteria pending\` on a terminal).
`;

/** `ideal-state --help`: every command but the gate's and verify's own options (their --help says those). */
export const SCHEDULE_USAGE = `  schedule add --cron CRON --glob GLOB --isc TYPE (--ci github [--shards N] [--action OWNER/REPO@REF] | --local) [--name NAME] [--effort LEVEL] [--work] [--force]
                                         a loop on a clock: --ci github writes .github/workflows/ideal-state-NAME.yml
                                         (running this release's action, or the one --action names);
                                         --local shows a crontab line and a systemd timer to install (installs nothing)
  schedule list                          the schedules written: the workspace's workflows, the user's crontab and systemd timers`;

export const NOTIFY_USAGE = `  notify check                           the webhooks of the user's notifications.yaml, and its problems
  notify test [--event EVENT]            send one signed test notification to every webhook (to those listing EVENT)`;

export const USAGE = `Usage: ideal-state <command> [options]

Commands:
  store info     where the workspace's store is and what it holds
  effort         the effort table in force (shipped, plus the workspace override)
  isc list       the ISC definitions by artifact type
  prd check FILE a PRD's (or PAI ISA's) problems and ISC rule findings (exit 1 on errors,
                 2 if unreadable)
  verify FILE    verify a PRD's criteria or an ISA's claims (exit 0 all CRITICAL pass, 1 not,
                 2 bad input; --report junit|sarif|markdown for CI; see ideal-state verify --help)
  gate           a stop hook for an agent host: verify the PRD, keep the agent working while a
                 CRITICAL criterion fails (see ideal-state gate --help; gate install <host>)
  mcp            an MCP server over stdio: criteria, verify and propose_criteria tools
  criteria pending  accept (on a terminal) criteria an agent proposed through the MCP server
  dashboard --out DIR  the store's history as a static page (index.html + data.json; --help)
${RUN_USAGE}
${LOOP_USAGE}
${MODELS_USAGE}
${LEARNING_USAGE}
${TRUST_USAGE}
${CRITERIA_USAGE}
${SCHEDULE_USAGE}
${NOTIFY_USAGE}

Options:
  --workspace DIR   the workspace folder (default: the current directory)
  --out FILE        where an export goes (default: standard output)
  --store FILE      the store database (default: one per workspace under the user data folder)
  --json            machine-readable output
  -h, --help        this help
  -v, --version     the version of this command line
`;
