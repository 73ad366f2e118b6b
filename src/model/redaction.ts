/**
 * Redaction by value: the process knows the credentials it holds — its own
 * environment's secret-named variables, the models file's key variables, the editor's secret
 * storage — so every string that leaves as evidence is scrubbed of those exact values, and of
 * the shapes credentials have anyway (private-key blocks, GitHub/AWS/Slack/OpenAI/… tokens,
 * JWTs, `NAME=value` lines whose name is a secret's), with a count of what was removed.
 *
 * Pure (no Node imports): the verification layer feeds it the environment, the model layer's
 * key resolution feeds it the keys it hands to providers.
 */

export const REDACTED = '[redacted]';

/**
 * A variable name that holds a credential, by its underscore-separated words: `GITHUB_TOKEN`,
 * `MYAPP_DB_PASS`, `MYSQL_PWD`, `AWS_SECRET_ACCESS_KEY`, `NPM_CONFIG__AUTH`, `AZURE_CREDS`,
 * and anywhere in the name PASSWORD, SECRET, TOKEN, APIKEY, CREDENTIAL. `PWD` and `OLDPWD`
 * alone are the shell's working folders, not passwords.
 */
const SECRET_WORD = /(^|_)(API_?KEY|KEY|KEYS|TOKEN|SECRET|PASS|PASSWORD|PASSWD|PASSPHRASE|PWD|CRED|CREDS|CREDENTIALS?|AUTH|AUTHTOKEN|PAT|COOKIE)(_|$)/i;
const SECRET_ANYWHERE = /PASSWORD|PASSWD|SECRET|TOKEN|APIKEY|CREDENTIAL|PRIVATE_?KEY/i;
const NOT_SECRET_NAMES = new Set(['PWD', 'OLDPWD']);

export function isSecretName(name: string): boolean {
  if (NOT_SECRET_NAMES.has(name.toUpperCase())) return false;
  return SECRET_WORD.test(name) || SECRET_ANYWHERE.test(name);
}

/**
 * Shapes of well-known credentials, found anywhere in a text. From the providers' own
 * documented prefixes (the same families gitleaks' and secretlint's recommended rules cover):
 * OpenAI/Anthropic keys, GitHub tokens, Slack tokens and webhooks, AWS access key ids, GitLab,
 * npm, Google API keys, Stripe keys, JWTs, HTTP bearer/basic credentials.
 */
export const TOKEN_SHAPES: readonly { readonly name: string; readonly pattern: RegExp }[] = [
  { name: 'OpenAI/Anthropic key', pattern: /\bsk-(?:ant-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/g },
  { name: 'GitHub token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}/g },
  { name: 'GitHub fine-grained token', pattern: /\bgithub_pat_[A-Za-z0-9_]{30,}/g },
  { name: 'Slack token', pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,}/g },
  { name: 'Slack webhook', pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]{20,}/g },
  { name: 'AWS access key id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b/g },
  { name: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/g },
  { name: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: 'Google API key', pattern: /\bAIza[A-Za-z0-9_-]{35}/g },
  { name: 'Stripe key', pattern: /\b[rsp]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'JWT', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  { name: 'HTTP credentials', pattern: /\b(?:Bearer|Basic|token)\s+[A-Za-z0-9._~+/-]{16,}=*/g },
];

/** A PEM private key, from its BEGIN line to its END line, or to the end of the text when cut. */
const PRIVATE_KEY_BLOCK = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)/g;
/** The end of a key block whose beginning was cut off (an output tail): from the text's start. */
const PRIVATE_KEY_TAIL = /^[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/;
/** `userinfo` of a URL with a password: `scheme://user:PASSWORD@host`. */
const URL_PASSWORD = /(:\/\/[^\s/@:]*:)([^\s/@]+)(@)/g;
/**
 * `NAME=value` (environment listings, `/proc/…/environ`, shell traces, `.env` files) and
 * `"name": "value"` (JSON), where NAME is a secret's: the value goes, whatever it is.
 */
const ASSIGNMENT = /(^|[\s\0'`;,{(])([A-Za-z_][A-Za-z0-9_]*)([ \t]*=[ \t]*["']?)([^\s\0"'`;,]+)/g;
const JSON_MEMBER = /(")([A-Za-z_][A-Za-z0-9_.-]*)("[ \t]*:[ \t]*")((?:[^"\\]|\\.)+)/g;

/** Values too short or too ordinary to redact everywhere they appear (`true`, `1`, `yes`). */
const MIN_VALUE_LENGTH = 6;
const ORDINARY = /^(true|false|yes|no|on|off|null|none|\d+)$/i;

export interface Redacted {
  readonly text: string;
  /** How many credentials were replaced by `[redacted]`. */
  readonly count: number;
}

/** The exact values to take out of every text it redacts, plus the shapes above. */
export class Redactor {
  private readonly values = new Set<string>();
  private sorted: string[] | undefined;

  /** Adds credentials by value (an API key, a password); short or ordinary values are ignored. */
  add(values: Iterable<string | undefined>): this {
    for (const raw of values) {
      if (raw === undefined) continue;
      for (const v of new Set([raw, raw.trim()])) {
        if (v.length < MIN_VALUE_LENGTH || ORDINARY.test(v) || this.values.has(v)) continue;
        this.values.add(v);
        this.sorted = undefined;
      }
    }
    return this;
  }

  /** The values of an environment's secret-named variables (and the password of any URL in one). */
  addEnvironment(env: Readonly<Record<string, string | undefined>>): this {
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined) continue;
      if (isSecretName(name)) this.add([value]);
      for (const m of value.matchAll(URL_PASSWORD)) this.add([m[2]]);
    }
    return this;
  }

  get size(): number {
    return this.values.size;
  }

  redact(text: string): Redacted {
    if (text === '') return { text, count: 0 };
    let count = 0;
    let out = text;
    // Longest first, so a value that contains another is taken whole.
    this.sorted ??= [...this.values].sort((a, b) => b.length - a.length);
    for (const v of this.sorted) {
      if (!out.includes(v)) continue;
      const parts = out.split(v);
      count += parts.length - 1;
      out = parts.join(REDACTED);
    }
    const replace = (pattern: RegExp, by: (...m: string[]) => string) => {
      out = out.replace(pattern, (...m: string[]) => {
        const replaced = by(...m);
        if (replaced !== m[0]) count++;
        return replaced;
      });
    };
    replace(PRIVATE_KEY_BLOCK, () => REDACTED);
    if (!/-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(out)) replace(PRIVATE_KEY_TAIL, () => REDACTED);
    for (const { pattern } of TOKEN_SHAPES) replace(pattern, () => REDACTED);
    replace(URL_PASSWORD, (_all, before, password, at) => (password === REDACTED ? `${before}${password}${at}` : `${before}${REDACTED}${at}`));
    const assigned = (all: string, lead: string, name: string, eq: string, value: string) =>
      isSecretName(name) && !value.startsWith(REDACTED) && !ORDINARY.test(value) && value.length >= 4 ? `${lead}${name}${eq}${REDACTED}` : all;
    replace(ASSIGNMENT, (all, lead, name, eq, value) => assigned(all!, lead!, name!, eq!, value!));
    replace(JSON_MEMBER, (all, lead, name, eq, value) => assigned(all!, lead!, name!, eq!, value!));
    return { text: out, count };
  }
}

/**
 * The process's own redactor: the values it was told of (models file key variables, the
 * editor's secret storage). The verification layer adds the process environment each time it
 * redacts (secret-env.ts), so a variable set after start is covered too.
 */
export const processSecrets = new Redactor();

/** Tells the process of credentials it holds (an API key read from secret storage or a key variable). */
export function registerSecrets(values: Iterable<string | undefined>): void {
  processSecrets.add(values);
}
