// Whether everything this repository ships says one version: package.json (the npm package
// and the extension), package-lock.json, the CHANGELOG's sections, the action's pin in
// docs/ci.md (the action itself runs `ideal-state@<package.json's version>`), and, when given,
// the host plugins scripts/build-plugins.mjs built. One line per disagreement; none: they agree.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { actionRepository } from '../src/app/schedule/action-repository.cjs';

export const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

/** a newer than b, both major.minor.patch. */
export function newer(a, b) {
  const [x, y] = [a, b].map((v) => v.match(SEMVER).slice(1).map(Number));
  return x[0] !== y[0] ? x[0] > y[0] : x[1] !== y[1] ? x[1] > y[1] : x[2] > y[2];
}

/**
 * The CHANGELOG's `## ` headings, each `{ line, text, version?, date?, unreleased }`. Notes
 * written before a release sit under `## Unreleased`: the number is chosen when the version is
 * bumped (scripts/version.mjs), which names and dates that section.
 */
export function changelogSections(text) {
  return text.split('\n').flatMap((raw, i) => {
    const m = /^## (.*?)\s*$/.exec(raw);
    if (!m) return [];
    const heading = m[1];
    const versioned = /^(\d+\.\d+\.\d+)(?: \((.*)\))?$/.exec(heading);
    return [{ line: i + 1, text: heading, unreleased: /^unreleased$/i.test(heading), version: versioned?.[1], date: versioned?.[2] }];
  });
}

function changelogProblems(text, version) {
  const problems = [];
  const sections = changelogSections(text);
  let previous;
  for (const [i, s] of sections.entries()) {
    const where = `CHANGELOG.md:${s.line} "## ${s.text}"`;
    if (s.unreleased) {
      if (i !== 0) problems.push(`${where}: the unreleased notes go in the first section, above every released one`);
      continue;
    }
    if (!s.version) {
      problems.push(`${where}: a section is "## Unreleased" or "## <major.minor.patch>" with an optional "(YYYY-MM-DD)"`);
      continue;
    }
    if (s.date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(s.date)) {
      problems.push(`${where}: ${s.version} is not released yet while package.json says ${version}: call the section "## Unreleased"; \`node scripts/version.mjs <version>\` names and dates it when the version is bumped`);
    } else if (newer(s.version, version)) {
      problems.push(`${where}: ${s.version} is newer than package.json's ${version}`);
    }
    if (previous && !newer(previous, s.version)) problems.push(`${where}: not older than the section above it (${previous})`);
    previous = s.version;
  }
  const first = sections.find((s) => s.version);
  if (!first) problems.push(`CHANGELOG.md has no section for ${version}, the version package.json says`);
  else if (first.version !== version && !newer(first.version, version)) problems.push(`CHANGELOG.md's newest section is ${first.version}, but package.json says ${version}: the version the package says has its notes`);
  return problems;
}

/** Every JSON file under `dir` (the built plugins), by path. */
function jsonFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) return name === 'dist' || name === 'isc-definitions' ? [] : jsonFiles(file);
    return name.endsWith('.json') ? [file] : [];
  });
}

/**
 * The versions a built plugin folder states: each manifest's `version` (plugin.json,
 * gemini-extension.json, the package.json beside the bundled command line) and each
 * marketplace entry's. Hooks files hold a format version of their own (Copilot's hooks.json
 * `version: 1`), not the package's, and are left out.
 */
function pluginProblems(dir, version) {
  if (!existsSync(dir)) return [`${dir} does not exist: build the plugins first (npm run build:plugins)`];
  const problems = [];
  let seen = 0;
  for (const file of jsonFiles(dir)) {
    if (/hooks\.json$/.test(file) || file.endsWith('.mcp.json')) continue;
    const data = JSON.parse(readFileSync(file, 'utf8'));
    const stated = [['version', data.version], ...(data.plugins ?? []).map((p, i) => [`plugins[${i}].version`, p.version])].filter(([, v]) => v !== undefined);
    for (const [field, v] of stated) {
      seen++;
      if (v !== version) problems.push(`${relative(dir, file)} ${field} is ${v}, package.json says ${version}: rebuild the plugins (npm run build:plugins)`);
    }
  }
  if (seen === 0) problems.push(`${dir} holds no plugin manifest with a version`);
  return problems;
}

/**
 * The action's release a workflow pins in docs/ci.md: `uses: OWNER/REPO@vX.Y.Z` (the other
 * actions there are pinned at a major tag, `@v4`). The repository is the one the workflows
 * `schedule add` writes use (src/app/schedule/action-repository.cjs); groups: the text up to
 * the version, the repository, the version.
 */
export const ACTION_PIN = /(uses: ([\w.-]+\/[\w.-]+)@v)(\d+\.\d+\.\d+)/g;

export function versionProblems(root, { plugins } = {}) {
  const read = (name) => readFileSync(join(root, name), 'utf8');
  const { version } = JSON.parse(read('package.json'));
  if (typeof version !== 'string' || !SEMVER.test(version)) return [`package.json's version ${JSON.stringify(version)} is not major.minor.patch`];
  const problems = [];
  const lock = JSON.parse(read('package-lock.json'));
  if (lock.version !== version) problems.push(`package-lock.json's version is ${lock.version}, package.json says ${version}`);
  if (lock.packages?.[''] && lock.packages[''].version !== version) problems.push(`package-lock.json's packages[""].version is ${lock.packages[''].version}, package.json says ${version}`);
  problems.push(...changelogProblems(read('CHANGELOG.md'), version));
  const action = actionRepository(JSON.parse(read('package.json')));
  if (!action.ok) problems.push(action.message);
  const pins = [...read('docs/ci.md').matchAll(ACTION_PIN)].map((m) => ({ repository: m[2], version: m[3] }));
  if (pins.length === 0) problems.push(`docs/ci.md pins no release of the action (uses: ${action.ok ? action.repository : 'OWNER/REPO'}@vX.Y.Z)`);
  for (const pin of pins) {
    if (pin.version !== version) problems.push(`docs/ci.md pins the action at v${pin.version}, package.json says ${version}`);
    if (action.ok && pin.repository !== action.repository) problems.push(`docs/ci.md pins the action from ${pin.repository}, but the workflows \`schedule add\` writes use ${action.repository} (${action.from === 'package.json' ? "package.json's repository" : 'the default: package.json has no repository'})`);
  }
  if (plugins) problems.push(...pluginProblems(plugins, version));
  return problems;
}
