import type { IsaProbe, IsaProbePlan } from './model';

const RUNNABLE = new Set(['bash', 'bun-test', 'bun-property', 'curl']);
/** A tool cell that names only the program (`bash`, `curl`): the command itself is elsewhere, if anywhere. */
const BARE_TOOL = /^(?:bash|sh|zsh|shell|curl|bun|bun test|node|cli|terminal)?$/i;
/** Thresholds that an exit status alone decides. */
const EXIT_ZERO = /^(?:exit(?:s)?\s*(?:code\s*)?0|0|pass(?:es)?|green|)$/i;
/** The same for a check type this product does not know: "0" alone there is as often "0 matches". */
const EXIT_ZERO_STRICT = /^(?:exit(?:s)?\s*(?:code\s*)?0(?:\s+on\s+(?:all|each|every\b.*))?|pass(?:es)?|green|)$/i;
/** `diff` exits 0 exactly when its inputs are the same, so these thresholds are its exit status. */
const DIFF_SAME = /^(?:empty(?:\s+diff)?|identical(?:\s+output)?|no\s+diff(?:erences?)?|same)$/i;
const LEADING_CODE = /^`([^`]+)`/;
const URL = /^https?:\/\/[^\s`'"<>|;&]+$/i;
const HTTP_STATUS = /^(?:http\s*)?(?:status\s*)?([1-5]\d\d)$/i;
const HTTP_OK = /^(?:exit\s*0|0|2xx|200|http\s*200|200\s*ok|ok|reachable|up|)$/i;

/**
 * Programs a probe's tool cell may start with to count as a command for a check type this
 * product does not know. A cell that starts otherwise ("5 user-test sessions", "listening
 * session with timer") is a description of a person's check, not something to run: running
 * it would fail for the wrong reason.
 */
const PROGRAMS = new Set([
  'bash', 'sh', 'zsh', 'node', 'npm', 'npx', 'pnpm', 'yarn', 'bun', 'bunx', 'deno', 'python', 'python3', 'pytest', 'go', 'cargo',
  'make', 'just', 'git', 'gh', 'jq', 'rg', 'grep', 'egrep', 'test', '[', 'curl', 'wget', 'diff', 'cmp', 'ls', 'wc', 'cat', 'head',
  'tail', 'awk', 'sed', 'find', 'stat', 'du', 'docker', 'kubectl', 'aws', 'gcloud', 'az', 'terraform', 'k6', 'ffmpeg', 'ffprobe',
  'sqlite3', 'psql', 'mysql', 'time', 'timeout', 'env', 'true', 'false', 'xargs', 'sort', 'uniq', 'tr', 'cut', 'openssl', 'ssh',
  'dig', 'nc', 'hyperfine', 'tsc', 'eslint', 'vitest', 'jest', 'mocha', 'playwright', 'swift', 'xcrun', 'codesign', 'spctl', 'java',
  'mvn', 'gradle', 'dotnet', 'ruby', 'bundle', 'php', 'composer', 'lighthouse', 'xmllint', 'shellcheck', 'prettier', 'ruff', 'mypy',
]);

/**
 * The command a runnable row runs: its `tool` cell (backticks already stripped), or, when the
 * tool is just a program name, the code at the start of `check` if the threshold is an exit
 * status. `check: "\`cli\` output is empty" | tool: bash` names no command that decides it.
 */
export function probeCommand(p: IsaProbe): string | undefined {
  if (!BARE_TOOL.test(p.tool.trim())) return p.tool.trim();
  const code = LEADING_CODE.exec(p.check.trim());
  return code && EXIT_ZERO.test(p.threshold.trim()) ? code[1]!.trim() : undefined;
}

/**
 * What the verifier does with a probe: `bash`, `bun-test`, `bun-property` and `curl` run as
 * commands (CLI: PASS when they exit 0), `eval` goes to the model judge (CUSTOM), and
 * `manual` and `screenshot` are never run: nothing here can see what a person or a capture
 * would, so they stay UNKNOWN and never pass. A tool cell that is a URL is fetched (curl).
 * A check type the ISA invented (`integration`, `word-count`, …) is verified by what its probe
 * is: a command whose exit status decides its threshold runs, a URL is fetched, and anything
 * else stays UNKNOWN with the reason, never a pass.
 */
export function planProbe(p: IsaProbe): IsaProbePlan {
  const judged = p.type === 'eval' || p.type === 'manual' || p.type === 'screenshot';
  const url = judged ? undefined : urlPlan(p);
  if (url) return url;
  if (RUNNABLE.has(p.type)) {
    const command = probeCommand(p);
    if (command) return { kind: 'method', method: { type: 'CLI', command } };
    return { kind: 'unknown', reason: `its ${p.type} probe names no command to run (tool "${p.tool}"); put the command in the Test Strategy's tool column` };
  }
  switch (p.type) {
    case 'eval': {
      const description = [p.check, p.threshold && `threshold: ${p.threshold}`, p.tool && `tool: ${p.tool}`].filter(Boolean).join('; ');
      return { kind: 'method', method: { type: 'CUSTOM', description: description || 'the eval passes' } };
    }
    case 'manual':
      return { kind: 'unknown', reason: `a manual probe: a person recognises it on encounter${p.check ? ` (${p.check})` : ''}; Ideal State cannot, so it stays UNKNOWN` };
    case 'screenshot':
      return { kind: 'unknown', reason: `a screenshot probe${p.tool ? ` (${p.tool})` : ''}: Ideal State does not capture or judge screenshots, so it stays UNKNOWN` };
    default:
      return inventedTypePlan(p);
  }
}

/** Whether a check type is one of the format's own. */
export function isKnownCheckType(type: string): boolean {
  return RUNNABLE.has(type) || type === 'eval' || type === 'manual' || type === 'screenshot';
}

function inventedTypePlan(p: IsaProbe): IsaProbePlan {
  const kind = p.type ? `the "${p.type}" probe` : 'the probe (no type)';
  const command = p.tool.trim() || LEADING_CODE.exec(p.check.trim())?.[1]?.trim() || '';
  if (!command) return { kind: 'unknown', reason: `${kind} names no command, so it stays UNKNOWN; put a command that exits 0 exactly when it holds in the tool column` };
  if (!looksLikeCommand(command)) {
    return { kind: 'unknown', reason: `${kind} describes a check ("${short(command)}") rather than naming a command to run, so it stays UNKNOWN; put a command that exits 0 exactly when it holds in the tool column` };
  }
  const threshold = p.threshold.trim();
  const decided = EXIT_ZERO_STRICT.test(threshold) || (/^diff\s/.test(command) && DIFF_SAME.test(threshold));
  if (!decided) {
    return { kind: 'unknown', reason: `${kind}'s threshold "${short(threshold)}" is not an exit status, so running \`${short(command)}\` cannot decide it here and it stays UNKNOWN; make the command exit 0 exactly when the threshold holds` };
  }
  return { kind: 'method', method: { type: 'CLI', command } };
}

/**
 * A tool cell that is only a URL, fetched as LifeOS's curl probes do: a 2xx answer passes
 * (`curl -fsS`), or the status the threshold names (`HTTP 401`, `404`) must be the answer's.
 */
function urlPlan(p: IsaProbe): IsaProbePlan | undefined {
  const url = p.tool.trim();
  if (!URL.test(url)) return undefined;
  const threshold = p.threshold.trim();
  const quoted = `'${url.replace(/'/g, `'\\''`)}'`;
  if (HTTP_OK.test(threshold)) return { kind: 'method', method: { type: 'CLI', command: `curl -fsS -o /dev/null --max-time 30 ${quoted}` } };
  const status = HTTP_STATUS.exec(threshold);
  if (status) return { kind: 'method', method: { type: 'CLI', command: `test "$(curl -s -o /dev/null -w '%{http_code}' --max-time 30 ${quoted})" = "${status[1]}"` } };
  return { kind: 'unknown', reason: `its probe fetches ${url}, but its threshold "${short(threshold)}" is not an HTTP status, so the answer cannot decide it here and it stays UNKNOWN` };
}

/**
 * The first word is a program this product knows or a path to a script (`./x.sh`,
 * `scripts/x.ts`), or a plain lower-case program name used as shell (an option, a pipe, `&&`,
 * `$(…)`): `duck --help | wc -l` is a command, "three readers summarise it" is not.
 */
function looksLikeCommand(text: string): boolean {
  const words = text.trim().split(/\s+/);
  let k = 0;
  while (k < words.length - 1 && (words[k] === '!' || /^[A-Z_][A-Z0-9_]*=\S*$/.test(words[k]!))) k++; // `! cmd`, `NO_COLOR=1 cmd`
  const first = words[k] ?? '';
  if (PROGRAMS.has(first)) return true;
  if (/^(?:\.{1,2}\/|~\/|\/)?[\w.-]+(?:\/[\w.-]+)+$/.test(first) || /^\.{1,2}\/[\w.-]+$/.test(first)) return true;
  const rest = words.slice(k + 1).join(' ');
  return /^[a-z][a-z0-9._-]*$/.test(first) && /(?:^|\s)--?[A-Za-z]|\||&&|;|\$\(|>/.test(rest);
}

function short(text: string): string {
  const line = text.split(/\r?\n/)[0]!.trim();
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
