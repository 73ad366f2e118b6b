import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { staticDashboardPage } from '../../../src/app/dashboard';
import { bundlePage, htmlPage } from '../../../src/app/html-page';

const sha = (text: string) => `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
const cspOf = (html: string) => /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];

describe('the HTML shell of every page (webviews and the static dashboard)', () => {
  it('starts every CSP from default-src \'none\': a page with no sources named may load nothing', () => {
    const html = htmlPage({ title: 'x', csp: [], head: [], body: [] });
    assert.equal(cspOf(html), `default-src 'none'`);
    assert.equal((html.match(/Content-Security-Policy/g) ?? []).length, 1, 'one policy, before anything that loads');
    assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<title>'));
  });

  it('gives a webview bundle exactly the policy it had: its origin for styles, images and fonts, one script by a nonce', () => {
    const html = bundlePage({ title: 'A <title> & "more"', cspSource: 'https://file+.vscode-resource.example', nonce: 'N0nce+/=', script: 'https://x/media/dist/isc-table.js', style: 'https://x/media/dist/isc-table.css' });
    const own = 'https://file+.vscode-resource.example';
    assert.equal(cspOf(html), `default-src 'none'; style-src ${own}; img-src ${own}; font-src ${own}; script-src 'nonce-N0nce+/='`);
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script nonce="N0nce+/=" src="https://x/media/dist/isc-table.js">'], 'one script, the bundle, with the nonce');
    assert.doesNotMatch(html, /<style|style="|unsafe-inline|unsafe-eval/);
    assert.match(html, /<link rel="stylesheet" href="https:\/\/x\/media\/dist\/isc-table.css">/);
    assert.match(html, /<title>A &#60;title&#62; &#38; &#34;more&#34;<\/title>/, 'the title is text, never markup');
  });

  it('gives the static dashboard exactly the policy it had: its inline script and style by their hashes, nothing else, no base or form target', () => {
    const html = staticDashboardPage({ data: { x: '</script><b>' } as never, script: 'console.log(1)\n//# sourceMappingURL=a.map\n', style: 'body{color:red}', source: 'C:\\a "store".sqlite' });
    assert.equal(cspOf(html), `default-src 'none'; style-src '${sha('body{color:red}')}'; script-src '${sha('console.log(1)')}'; img-src 'none'; base-uri 'none'; form-action 'none'`);
    assert.match(html, /<meta name="referrer" content="no-referrer">/);
    assert.match(html, /<body data-source="C:\\a &#34;store&#34;.sqlite">/);
    assert.match(html, /<script type="application\/json" id="dashboard-data">\{"x":"\\u003c\/script\\u003e\\u003cb\\u003e"\}<\/script>/, 'the figures cannot end their block');
    assert.ok(html.endsWith('</html>\n'));
  });
});
