// What the two extension stores check of a packaged extension, read from the .vsix itself
// (its extension/package.json, its file list and its README), so a package that one of them
// would refuse, or show broken, is caught here and not at publishing time.
//
// Open VSX: the registry's own validation of a published version, server/src/main/java/org/
// eclipse/openvsx/ExtensionValidator.java in eclipse-openvsx/openvsx: the namespace (publisher)
// and name match [\w\-\+\$~]+ and are at most 255 characters; the version is semantic and not
// "latest", "pre-release" or "reviews"; displayName at most 255 and description at most 2048
// characters, neither with control or format characters; each category and keyword at most 255;
// the license at most 255; homepage, repository and bugs, when given, absolute URLs;
// galleryBanner.color at most 16 characters and galleryBanner.theme "dark" or "light";
// markdown "github" or "standard"; qna "marketplace", "false" or a URL. A registry that requires
// a license (the server's checkLicense, under its publishing require-license setting) refuses
// a version with neither a license field nor a license file: "This extension cannot be accepted
// because it has no license." ovsx packages with vsce, so vsce's own rules hold as well.
//
// vsce (node_modules/@vscode/vsce/out/package.js, validation.js): engines.vscode given; an icon
// that is a PNG in the package (an SVG icon is refused); no '*' activation (asked about, with
// --allow-star-activation to pass); a README that is not the template; the README's images.
const NAME = /^[\w\-+$~]+$/;
const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;
// Unicode categories Open VSX refuses in text fields: control, format, unassigned, private use, line and paragraph separators.
const BAD_CHARACTER = /[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Zl}\p{Zp}]/u;

/**
 * The problems of a package, one line each (empty: none). `files` are the package's paths
 * (`extension/…`), `read(path)` gives a file's bytes.
 */
export function storeProblems(manifest, files, read) {
  const problems = [];
  const say = (line) => problems.push(line);
  const text = (value, field, limit) => {
    if (value === undefined) return;
    if (typeof value !== 'string') return say(`${field} is not text`);
    if (value.length > limit) say(`${field} is ${value.length} characters; Open VSX takes at most ${limit}`);
    const bad = BAD_CHARACTER.exec(value);
    if (bad) say(`${field} holds a control or format character (U+${bad[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')} at ${bad.index}), which Open VSX refuses`);
  };
  const url = (value, field) => {
    if (value === undefined) return;
    const raw = typeof value === 'object' && value !== null ? value.url : value;
    try {
      const parsed = new URL(String(raw).replace(/^git\+/, ''));
      if (/^https?:$/.test(parsed.protocol) && !parsed.host) throw new Error('no host');
    } catch {
      say(`${field} is not an absolute URL: ${JSON.stringify(raw)}`);
    }
    text(String(raw), field, 255);
  };

  for (const [field, value] of [['publisher (the Open VSX namespace)', manifest.publisher], ['name', manifest.name]]) {
    if (typeof value !== 'string' || value === '') say(`${field} is missing`);
    else if (!NAME.test(value)) say(`${field} "${value}" has characters outside [A-Za-z0-9_-+$~]`);
    else if (value.length > 255) say(`${field} is longer than 255 characters`);
  }
  if (typeof manifest.version !== 'string' || !SEMVER.test(manifest.version)) say(`version ${JSON.stringify(manifest.version)} is not a semantic version`);
  else if (['latest', 'pre-release', 'reviews'].includes(manifest.version)) say(`version "${manifest.version}" is reserved`);
  text(manifest.displayName, 'displayName', 255);
  text(manifest.description, 'description', 2048);
  for (const c of manifest.categories ?? []) text(c, 'a category', 255);
  for (const k of manifest.keywords ?? []) text(k, 'a keyword', 255);
  if (typeof manifest.license !== 'string' || manifest.license.trim() === '') say('license is missing: open-vsx.org accepts only extensions with a license');
  else text(manifest.license, 'license', 255);
  if (!files.some((f) => /^extension\/licen[cs]e(\.(md|txt))?$/i.test(f))) say('no LICENSE file in the package');
  url(manifest.homepage, 'homepage');
  url(manifest.repository, 'repository');
  url(manifest.bugs, 'bugs');
  if (manifest.galleryBanner !== undefined) {
    text(manifest.galleryBanner.color, 'galleryBanner.color', 16);
    if (manifest.galleryBanner.theme !== undefined && !['dark', 'light'].includes(manifest.galleryBanner.theme)) say(`galleryBanner.theme "${manifest.galleryBanner.theme}" is not dark or light`);
  }
  if (manifest.markdown !== undefined && !['github', 'standard'].includes(manifest.markdown)) say(`markdown "${manifest.markdown}" is not github or standard`);
  if (typeof manifest.engines?.vscode !== 'string') say('engines.vscode is missing');
  if ((manifest.activationEvents ?? []).includes('*')) say("activationEvents holds '*': the extension would start with every window");

  if (typeof manifest.icon !== 'string') say('no icon');
  else if (!/\.png$/i.test(manifest.icon)) say(`icon ${manifest.icon} is not a PNG (vsce refuses an SVG icon)`);
  else if (!files.includes(`extension/${manifest.icon}`)) say(`icon ${manifest.icon} is not in the package`);
  else {
    const png = read(`extension/${manifest.icon}`);
    const width = png.readUInt32BE(16);
    const height = png.readUInt32BE(20);
    if (png.subarray(1, 4).toString('latin1') !== 'PNG') say(`icon ${manifest.icon} is not a PNG file`);
    else if (width < 128 || height < 128) say(`icon ${manifest.icon} is ${width}×${height}; the Marketplace shows it at 128×128`);
  }

  const readme = files.find((f) => /^extension\/readme\.md$/i.test(f));
  if (!readme) say('no README in the package');
  else {
    const body = read(readme).toString('utf8');
    if (/This is the README for your extension /.test(body)) say('the README is the template');
    for (const [, link] of body.matchAll(/!\[[^\]]*\]\(([^)\s]+)[^)]*\)/g)) {
      if (/^https:\/\//.test(link)) continue;
      if (/^\w+:/.test(link)) {
        say(`README image ${link.slice(0, 60)}: neither store shows it (https: only)`);
        continue;
      }
      if (!files.includes(`extension/${link.replace(/^\.\//, '')}`)) say(`README image ${link} is not in the package`);
    }
  }
  return problems;
}
