/**
 * Whether a check's command installs dependencies: `npm ci`, `npm install` (and its aliases,
 * `npm add`, `npm install-ci-test`), `pnpm install`, `yarn` or `yarn install`,
 * `bun install`, each as the start of one of the command's steps (`npm ci && npm test`). Such a
 * check rewrites `node_modules` itself, through the snapshot's link to the live folder, so the
 * guard of that folder (linked-guard.ts) cannot tell its writes from a watcher's: it is off for
 * that stop, and the answer says so. Read from what a person locked (the lock's criteria), never
 * from a file the agent can edit. Other package managers' folders (.venv, vendor) are not guarded
 * as a whole, so nothing is switched off for them.
 */
const INSTALL = /^(?:npm\s+(?:ci|clean-install|ic|install-clean|isntall-clean|install-ci-test|cit|it|install|i|in|ins|inst|insta|instal|isnt|isnta|isntal|isntall|add)|pnpm\s+(?:install|i)|yarn(?=\s*$|\s+-)|yarn\s+install|bun\s+(?:install|i))(?:\s|$)/;

/** The step separators of a shell command line (`&&`, `||`, `;`, `|`, a new line). */
const STEP = /&&|\|\||[;|\n]/;

export function installsDependencies(command: string): boolean {
  return command.split(STEP).some((step) => INSTALL.test(step.trim().replace(/^(?:\w+=\S*\s+)+/, '')));
}

/** The locked checks (as a lock writes `verify`: `CLI: npm ci && npm test`) whose command installs dependencies. */
export function installingChecks(verifies: readonly (string | null)[]): string[] {
  const out: string[] = [];
  for (const v of verifies) {
    const m = v === null ? null : /^\s*(?:CLI|Test|Static)\s*:\s*(.*)$/is.exec(v);
    if (m && installsDependencies(m[1]!) && !out.includes(m[1]!.trim())) out.push(m[1]!.trim());
  }
  return out;
}
