/**
 * The environment a verification command gets: the caller's, minus anything that looks
 * like a credential. A PRD's command is the workspace's code; it has no business with the
 * user's API keys or tokens (DESIGN §9).
 */
const SECRET_NAME = /(^|_)(API_?KEY|KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)(_|$)|PASSWORD|SECRET|TOKEN|APIKEY/i;

export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export function scrubEnvironment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretName(name)) out[name] = value;
  }
  return out;
}
