import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join, normalize } from 'node:path';
import { repoRoot, vsixPath } from '../harness/paths.mjs';
import { Workbench } from '../harness/workbench.mjs';

const unzip = (...args) => spawnSync('unzip', args, { maxBuffer: 64 << 20 });
const packageFiles = (vsix) => unzip('-Z1', vsix).stdout.toString('utf8').split('\n').filter(Boolean);
/** The files vsce adds to every package, beside the extension's own. */
const VSCE_OWN = ['extension.vsixmanifest', '[Content_Types].xml'];
/** The lowercased names vsce gives the README, CHANGELOG and LICENSE inside the package. */
const RENAMED = { 'extension/readme.md': 'README.md', 'extension/changelog.md': 'CHANGELOG.md', 'extension/LICENSE.txt': 'LICENSE' };

/** The details page's README: the extension's row in Extensions: Installed, clicked, as a person opens it. */
async function openDetails(workbench) {
  await workbench.runCommand('Extensions: Show Installed Extensions');
  const entry = workbench.page.locator('.extensions-viewlet .monaco-list-row', { hasText: 'Ideal State' }).first();
  await entry.waitFor({ timeout: 60_000 });
  await entry.click();
  const page = await workbench.webview('Extension: Ideal State', { timeoutMs: 60_000 });
  await page.locator('h1', { hasText: 'Ideal State' }).first().waitFor({ timeout: 30_000 });
  return page;
}

/**
 * What `vsce ls` lists is what the .vsix holds and nothing else: the `files` list of
 * package.json (the bundles, the webviews' built scripts, the ISC definitions, the README's
 * images, README, CHANGELOG, LICENSE), no source, test, map or development file, and no
 * command-line chunk that the command line does not load (a stale chunk of an older build).
 */
describe('the packaged extension: what ships, and its page in the Extensions view', function () {
  this.timeout(300_000);

  it('`vsce ls` lists only what ships: the .vsix\'s own files, each one the extension or its command line loads', () => {
    const listed = spawnSync('npx', ['vsce', 'ls', '--no-dependencies'], { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(listed.status, 0, listed.stderr);
    const ls = listed.stdout.split('\n').map((l) => l.trim()).filter(Boolean).sort();
    const shipped = packageFiles(vsixPath).filter((f) => !VSCE_OWN.includes(f)).map((f) => RENAMED[f] ?? f.replace(/^extension\//, '')).sort();
    assert.deepEqual(ls, shipped, 'vsce ls and the .vsix list the same files (a dist/ rebuilt since `npm run package` differs: package again)');
    const allowed = /^(package\.json|README\.md|CHANGELOG\.md|LICENSE|dist\/(extension\.js|engine\.js|cli\.js|cli\.mjs|cli-[A-Z0-9]+\.mjs|cli-lean\.cjs|process-host\.cjs|sql-wasm\.wasm)|isc-definitions\/[\w.]+\.yaml|media\/(icon\.png|ideal-state-activity\.svg|dist\/[\w-]+\.(js|css)|walkthrough\/[\w-]+\.(md|png|svg)|readme\/[\w-]+\.png))$/;
    assert.deepEqual(ls.filter((f) => !allowed.test(f)), [], 'a file outside what the extension and its command line load');
    // Every chunk shipped is one the command line imports (from dist/cli.mjs, transitively).
    const reached = new Set();
    const queue = ['cli.mjs'];
    while (queue.length > 0) {
      const file = queue.pop();
      if (reached.has(file)) continue;
      reached.add(file);
      const body = unzip('-p', vsixPath, `extension/dist/${file}`).stdout.toString('utf8');
      for (const [, chunk] of body.matchAll(/["']\.\/(cli-[A-Z0-9]+\.mjs)["']/g)) queue.push(chunk);
    }
    const chunks = ls.filter((f) => /^dist\/cli-[A-Z0-9]+\.mjs$/.test(f)).map((f) => f.slice('dist/'.length));
    assert.ok(chunks.length > 0, 'the command line ships its chunks');
    assert.deepEqual(chunks.filter((c) => !reached.has(c)), [], 'a command-line chunk nothing imports');
    assert.deepEqual([...reached].filter((c) => c !== 'cli.mjs' && !chunks.includes(c)), [], 'a chunk the command line imports is missing');
  });

  describe('the .vsix as `npm run package` makes it', () => {
    let workbench;
    before(async () => {
      workbench = await Workbench.open({ trusted: true });
    });
    after(async () => {
      await workbench?.close();
    });

    it('its page\'s first screen shows the one-line installs: the command line and the gate', async () => {
      const page = await openDetails(workbench);
      // In the page's own viewport (the editor area, 1280×800 window), without scrolling.
      const onFirstScreen = (text) => page.locator('code', { hasText: text }).first().evaluate((el) => {
        const box = el.getBoundingClientRect();
        return { top: Math.round(box.top), bottom: Math.round(box.bottom), height: window.innerHeight, scrolled: window.scrollY };
      });
      for (const line of ['npm install -g ideal-state', 'ideal-state gate install claude-code']) {
        const at = await onFirstScreen(line);
        assert.equal(at.scrolled, 0, 'the page is not scrolled');
        assert.ok(at.top >= 0 && at.bottom <= at.height, `"${line}" is at ${at.top}–${at.bottom} px, below the first screen (${at.height} px)`);
      }
      await workbench.screenshot('extension page first screen');
    });

    // What docs/development.md says a publisher must change: with the README's images as paths
    // inside the package, VS Code's page shows none of them (its policy takes https: images).
    it('shows the README\'s text but none of its images, which are paths inside the package', async () => {
      const page = await openDetails(workbench);
      await page.locator('h2', { hasText: 'What is in it' }).waitFor({ timeout: 30_000 });
      const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
      assert.ok([...readme.matchAll(/!\[[^\]]*\]\(media\/readme\/[\w-]+\.png\)/g)].length >= 2, 'the README names its images as paths inside the package');
      // Each <img> the page kept has settled (loaded or failed) before it is counted.
      let images = [];
      for (const deadline = Date.now() + 15_000; ; ) {
        images = await page.locator('img').evaluateAll((all) => all.map((i) => ({ src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth })));
        if (images.every((i) => i.complete) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.ok(images.every((i) => i.complete), `an image is still loading: ${JSON.stringify(images)}`);
      const shown = images.filter((i) => i.width > 0).map((i) => i.src);
      assert.deepEqual(shown, [], 'an image shows: the page now takes paths inside the package, and docs/development.md should say so');
    });
  });

  /**
   * VS Code shows an extension's README in a page whose policy takes images from `https:` (and
   * `data:`, which its Markdown sanitizer drops), so the README's relative paths show only once
   * vsce has rewritten them to an https address: `repository` in package.json, or
   * `--baseImagesUrl`. This is the publisher's step, with the address a local https server that
   * serves the package's own files: the .vsix packed with it, installed, and every image on the
   * details page loaded from that server.
   */
  describe('the .vsix packed with --baseImagesUrl, its images served from the package\'s own files', () => {
    let workbench;
    let scratch;
    let server;
    const served = [];

    before(async () => {
      scratch = mkdtempSync(join(tmpdir(), 'ideal-state-extension-page-'));
      const key = join(scratch, 'key.pem');
      const cert = join(scratch, 'cert.pem');
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', cert, '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' });
      assert.equal(made.status, 0, `openssl: ${made.stderr}`);
      // The package's own files, as the install unpacks them.
      const unpacked = join(scratch, 'package');
      mkdirSync(unpacked);
      assert.equal(unzip('-q', vsixPath, '-d', unpacked).status, 0, 'unzip of the .vsix');
      const root = join(unpacked, 'extension');
      server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
        const path = normalize(decodeURIComponent(new URL(req.url, 'https://127.0.0.1').pathname)).replace(/^\/+/, '');
        served.push(path);
        let body;
        try {
          if (path.startsWith('..')) throw new Error('outside');
          body = readFileSync(join(root, path));
        } catch {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, { 'content-type': path.endsWith('.png') ? 'image/png' : 'application/octet-stream' }).end(body);
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      const base = `https://127.0.0.1:${server.address().port}/`;
      // The publisher's vsce line: the package script's flags, the rewriting on, the address given.
      const script = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts.package;
      const flags = (/vsce package (.*?) --out /.exec(script)?.[1] ?? '').split(/\s+/).filter((f) => f && f !== '--no-rewrite-relative-links');
      const vsix = join(scratch, 'published.vsix');
      const packed = spawnSync('npx', ['vsce', 'package', ...flags, '--baseImagesUrl', base, '--baseContentUrl', base, '--out', vsix], { cwd: repoRoot, encoding: 'utf8' });
      assert.equal(packed.status, 0, `vsce package --baseImagesUrl: ${packed.stdout}${packed.stderr}`);
      const readme = unzip('-p', vsix, 'extension/readme.md').stdout.toString('utf8');
      assert.match(readme, new RegExp(`!\\[[^\\]]*\\]\\(${base.replace(/[.]/g, '\\.')}media/readme/[\\w-]+\\.png\\)`), 'vsce rewrote the README\'s images to the address');
      workbench = await Workbench.open({ trusted: true, vsix, ignoreHTTPSErrors: true });
    });

    after(async () => {
      await workbench?.close();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it('shows every README image on the extension page, loaded (naturalWidth > 0) from the package\'s files', async () => {
      const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
      const wanted = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
      assert.ok(wanted.length >= 2, JSON.stringify(wanted));
      const page = await openDetails(workbench);
      const images = page.locator('img');
      const deadline = Date.now() + 30_000;
      let seen = [];
      for (;;) {
        seen = await images.evaluateAll((all) => all.map((i) => ({ src: i.getAttribute('src'), complete: i.complete, width: i.naturalWidth })));
        if ((seen.length >= wanted.length && seen.every((i) => i.complete)) || Date.now() > deadline) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.deepEqual(seen.map((i) => i.src.replace(/^https:\/\/127\.0\.0\.1:\d+\//, '')), wanted, `the page's images are the README's, in order: ${JSON.stringify(seen)}`);
      for (const image of seen) assert.ok(image.complete && image.width > 0, `${image.src} did not load: ${JSON.stringify(image)}`);
      for (const path of wanted) assert.ok(served.includes(path), `${path} was not fetched from the package's files (served: ${served.join(', ')})`);
      await images.last().scrollIntoViewIfNeeded();
      await workbench.screenshot('extension page readme images');
    });
  });
});
