// One version for everything this repository ships: the npm package, the extension (the same
// package.json), the host plugins and marketplace entries (scripts/build-plugins.mjs reads it)
// and the CI action (action/verify.mjs runs `ideal-state@<it>` when not built; docs/ci.md pins
// its release tag). A bump sets package.json and package-lock.json, names and dates the
// CHANGELOG's "## Unreleased" section, and moves the action's pin in docs/ci.md; `--check`
// only says whether they all agree (and, with `--plugins DIR`, the plugins built there).
//
//   node scripts/version.mjs <major.minor.patch> [--date YYYY-MM-DD] [--root DIR]
//   node scripts/version.mjs --check [--plugins DIR] [--root DIR]
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ACTION_PIN, newer, SEMVER, versionProblems } from './version-check.mjs';

function fail(message) {
  process.stderr.write(`version: ${message}\n`);
  process.exit(2);
}

function option(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const root = resolve(option('--root') ?? join(dirname(fileURLToPath(import.meta.url)), '..'));

/** What disagrees; a file that is missing or not JSON is said and ends the script. */
function disagreements(options) {
  try {
    return versionProblems(root, options);
  } catch (error) {
    fail(error.message);
  }
}

if (process.argv[2] === '--check') {
  const plugins = option('--plugins');
  const problems = disagreements({ plugins: plugins && resolve(plugins) });
  if (problems.length > 0) fail(`the versions disagree:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  process.stdout.write(`one version: ${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`);
  process.exit(0);
}

const next = process.argv[2];
if (!next || !SEMVER.test(next)) fail(`give the new version as major.minor.patch (e.g. 0.2.0), not "${next ?? ''}"`);
const date = option('--date') ?? new Date().toISOString().slice(0, 10);
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) fail(`--date takes YYYY-MM-DD, not "${date}"`);
const files = { manifest: join(root, 'package.json'), lock: join(root, 'package-lock.json'), changelog: join(root, 'CHANGELOG.md'), ci: join(root, 'docs', 'ci.md') };
const read = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    fail(`${file}: ${error.message}`);
  }
};
const manifest = JSON.parse(read(files.manifest));
const lock = JSON.parse(read(files.lock));
const changelog = read(files.changelog);
const ci = read(files.ci);

// A bump starts from versions that agree, so that it moves them together.
const before = disagreements();
if (before.length > 0) fail(`the versions disagree before the bump (node scripts/version.mjs --check):\n${before.map((p) => `  ${p}`).join('\n')}`);
if (!newer(next, manifest.version)) fail(`${next} is not newer than ${manifest.version} (package.json)`);

// The notes are written before the release, under "## Unreleased"; the bump names and dates it.
const heading = /^## Unreleased[ \t]*$/im;
if (!heading.test(changelog)) fail(`CHANGELOG.md has no "## Unreleased" section: write the release notes first`);
if (new RegExp(`^## ${next.replace(/\./g, '\\.')}\\b`, 'm').test(changelog)) fail(`CHANGELOG.md already has a ${next} section`);

manifest.version = next;
lock.version = next;
if (lock.packages?.['']) lock.packages[''].version = next;

// Each file replaced whole (written beside it, then renamed), so a failure leaves none half-written.
const writes = [
  [files.manifest, `${JSON.stringify(manifest, null, 2)}\n`],
  [files.lock, `${JSON.stringify(lock, null, 2)}\n`],
  [files.changelog, changelog.replace(heading, `## ${next} (${date})`)],
  [files.ci, ci.replace(ACTION_PIN, `$1${next}`)],
];
for (const [file, text] of writes) writeFileSync(`${file}.version-tmp`, text);
for (const [file] of writes) renameSync(`${file}.version-tmp`, file);
process.stdout.write(`${manifest.name} ${next}: package.json, package-lock.json, CHANGELOG.md (## ${next} (${date})), docs/ci.md's action pin; the plugins and the action take it from package.json\n`);
