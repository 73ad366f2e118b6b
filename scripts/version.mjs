// One version for everything this repository ships: the npm package, the extension (the same
// package.json), the Claude Code plugin and marketplace entry (scripts/build-plugins.mjs reads
// it) and the CI action (action/verify.mjs runs `ideal-state@<it>` when not built). This script
// bumps it in package.json and package-lock.json and dates the CHANGELOG's unreleased section.
//
//   node scripts/version.mjs <major.minor.patch> [--date YYYY-MM-DD] [--root DIR]
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function fail(message) {
  process.stderr.write(`version: ${message}\n`);
  process.exit(2);
}

function option(name) {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;
const next = process.argv[2];
if (!next || !SEMVER.test(next)) fail(`give the new version as major.minor.patch (e.g. 0.2.0), not "${next ?? ''}"`);
const date = option('--date') ?? new Date().toISOString().slice(0, 10);
if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) fail(`--date takes YYYY-MM-DD, not "${date}"`);
const root = resolve(option('--root') ?? join(dirname(fileURLToPath(import.meta.url)), '..'));

const files = { manifest: join(root, 'package.json'), lock: join(root, 'package-lock.json'), changelog: join(root, 'CHANGELOG.md') };
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

const order = (v) => v.match(SEMVER).slice(1).map(Number);
const [a, b] = [order(manifest.version), order(next)];
const newer = b[0] !== a[0] ? b[0] > a[0] : b[1] !== a[1] ? b[1] > a[1] : b[2] > a[2];
if (!newer) fail(`${next} is not newer than ${manifest.version} (package.json)`);

// The notes are written before the release: the top section is "## <next> (unreleased)" (or
// "## Unreleased"), and becomes the release's section, dated.
const heading = /^## (?:(\d+\.\d+\.\d+) \(unreleased\)|Unreleased)[ \t]*$/im;
const found = changelog.match(heading);
if (!found) fail(`CHANGELOG.md has no unreleased section ("## ${next} (unreleased)" or "## Unreleased"): write the release notes first`);
if (found[1] && found[1] !== next) fail(`CHANGELOG.md's unreleased section is for ${found[1]}, not ${next}`);
if (new RegExp(`^## ${next.replace(/\./g, '\\.')} \\(\\d{4}-`, 'm').test(changelog)) fail(`CHANGELOG.md already has a dated ${next} section`);

manifest.version = next;
lock.version = next;
if (lock.packages?.['']) lock.packages[''].version = next;

// Each file replaced whole (written beside it, then renamed), so a failure leaves none half-written.
const writes = [
  [files.manifest, `${JSON.stringify(manifest, null, 2)}\n`],
  [files.lock, `${JSON.stringify(lock, null, 2)}\n`],
  [files.changelog, changelog.replace(heading, `## ${next} (${date})`)],
];
for (const [file, text] of writes) writeFileSync(`${file}.version-tmp`, text);
for (const [file] of writes) renameSync(`${file}.version-tmp`, file);
process.stdout.write(`${manifest.name} ${next}: package.json, package-lock.json, CHANGELOG.md (## ${next} (${date})); the plugin and the action take it from package.json\n`);
