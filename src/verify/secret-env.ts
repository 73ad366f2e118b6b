/**
 * The environment a verification command gets: the caller's, minus anything that looks
 * like a credential and minus the variables that load code into a program (isLoaderVariable). A PRD's command is the workspace's code; it has no business with the
 * user's API keys or tokens. Names catch `GITHUB_TOKEN`; values catch what a
 * name hides: `DATABASE_URL=postgres://u:pw@host/db`, a pasted `sk-…` key, a private key.
 */
import { isSecretName as secretName, processSecrets, type Redacted } from '../model/redaction';

/**
 * A URL with a password in it (`scheme://user:pass@host`), anywhere in the value (lists,
 * proxies). From `://` on only, so a long value is scanned once, not once per letter.
 */
const URL_WITH_PASSWORD = /:\/\/[^\s/@:]*:[^\s/@]*@/;
/** Any userinfo: a DSN's user part is its key (`https://KEY@o1.ingest.sentry.io/5`). */
const URL_WITH_USERINFO = /:\/\/[^\s/@]+@/;
/** Names of variables that hold where to connect, whose userinfo or `password=` is a secret. */
const CONNECTION_NAME = /(_|^)(URL|URI|DSN|CONNECTION(_STRING)?|CONN(_STR)?)$/i;
const KEY_VALUE_PASSWORD = /(^|[\s;])(password|pwd|passwd)\s*=/i;

/**
 * Shapes of well-known credentials, matched against the whole value: OpenAI and Anthropic
 * keys, GitHub tokens, Slack tokens, AWS access key ids, GitLab and npm tokens, Google API
 * keys, Stripe secret keys, and a PEM private key anywhere in the value.
 */
const KEY_SHAPES: readonly RegExp[] = [
  /^sk-[A-Za-z0-9_-]{20,}$/,
  /^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}$/,
  /^github_pat_[A-Za-z0-9_]{30,}$/,
  /^xox[abposre]-[A-Za-z0-9-]{10,}$/,
  /^(AKIA|ASIA)[A-Z0-9]{16}$/,
  /^glpat-[A-Za-z0-9_-]{20,}$/,
  /^npm_[A-Za-z0-9]{36}$/,
  /^AIza[A-Za-z0-9_-]{35}$/,
  /^[rs]k_(live|test)_[A-Za-z0-9]{16,}$/,
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/,
];

/** A credential's name by its words (model/redaction.ts): TOKEN, KEY, SECRET, PASS, PWD, CRED, AUTH, … */
export function isSecretName(name: string): boolean {
  return secretName(name);
}

/** Whether a variable's value is a credential whatever it is called. */
export function isSecretValue(name: string, value: string): boolean {
  const trimmed = value.trim();
  if (URL_WITH_PASSWORD.test(trimmed)) return true;
  if (CONNECTION_NAME.test(name) && (URL_WITH_USERINFO.test(trimmed) || KEY_VALUE_PASSWORD.test(trimmed))) return true;
  return KEY_SHAPES.some((shape) => shape.test(trimmed));
}

/** By name or by value: what a command's environment never carries. */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  return isSecretName(name) || (value !== undefined && isSecretValue(name, value));
}

/**
 * Variables that make a program load code it was not asked to run: Node's `NODE_OPTIONS`
 * (`--require ./hook.cjs` forced every check's exit code to 0), `NODE_PATH` and
 * `NODE_REPL_EXTERNAL_MODULE`, npm's `npm_config_*` (any case: a script shell, a node-options,
 * a prefix), the dynamic loader's preloads, bash's start-up file for a non-interactive shell
 * (`BASH_ENV`; `ENV` is read only by interactive shells and is a common application variable,
 * so it stays), and Perl's and Ruby's option variables. An agent can set them for
 * its host's hooks (`env` in its settings); a check never needs them to say whether the work is
 * done, so no check gets them, wherever it runs (the gate, `verify`, the MCP server, the editor).
 */
const LOADER_NAMES = new Set(['NODE_OPTIONS', 'NODE_PATH', 'NODE_REPL_EXTERNAL_MODULE', 'LD_PRELOAD', 'LD_AUDIT', 'DYLD_INSERT_LIBRARIES', 'BASH_ENV', 'PERL5OPT', 'RUBYOPT']);

export function isLoaderVariable(name: string): boolean {
  return LOADER_NAMES.has(name) || /^npm_config_/i.test(name);
}

/** The loader variables an environment sets, by name (what the gate says it removed). */
export function loaderVariablesIn(env: NodeJS.ProcessEnv): string[] {
  return Object.keys(env).filter((name) => env[name] !== undefined && isLoaderVariable(name)).sort();
}

/** The environment every check gets: the caller's, without credentials and without loader variables. */
export function scrubEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const seen = contentsOf(env);
  if (scrubbed?.contents !== seen) {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(env)) {
      if (value !== undefined && !isSecretVariable(name, value) && !isLoaderVariable(name)) out[name] = value;
    }
    scrubbed = { contents: seen, env: out };
  }
  return { ...scrubbed.env };
}

/**
 * Every spawned check and every piece of evidence looks at the environment, with a dozen
 * patterns per variable; it changes seldom, so each answer is kept for the environment it was
 * worked out for (its names and values, compared whole), and worked out again when it changes.
 */
let scrubbed: { contents: string; env: Record<string, string> } | undefined;
let registered: string | undefined;

function contentsOf(env: NodeJS.ProcessEnv): string {
  let out = '';
  for (const name in env) out += `${name}\0${env[name] ?? ''}\0`;
  return out;
}

/**
 * A text as it may leave as evidence: without the values of the environment's secret-named
 * variables (and of any variable whose value is a credential), without what the process was
 * told of (registerSecrets), and without credential shapes; with how many were taken out.
 */
export function redactEvidence(text: string, env: NodeJS.ProcessEnv = process.env): Redacted {
  return evidenceRedactor(env)(text);
}

/**
 * redactEvidence for many texts, the environment looked at once, now: a verification set's
 * evidence is redacted against the environment as it was when the set began (looking costs a
 * pass over every variable, some 65 µs, and a set has dozens of texts).
 */
export function evidenceRedactor(env: NodeJS.ProcessEnv = process.env): (text: string) => Redacted {
  // The process's secrets only grow: an environment already told of adds nothing.
  const seen = contentsOf(env);
  if (registered !== seen) {
    processSecrets.addEnvironment(env);
    for (const [name, value] of Object.entries(env)) if (value !== undefined && !secretName(name) && isSecretValue(name, value)) processSecrets.add([value]);
    registered = seen;
  }
  return (text) => processSecrets.redact(text);
}
