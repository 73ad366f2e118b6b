import { createHash } from 'node:crypto';
import { escapeAttribute, htmlPage } from '../html-page';
import type { DashboardData } from './data';

export interface StaticPageInput {
  data: DashboardData;
  /** The page's bundle (media/dist/dashboard-page.js) and its style sheet. */
  script: string;
  style: string;
  /** Where the figures came from, for the page's subtitle (the store's file). */
  source: string;
}

/**
 * The static dashboard page: one self-contained index.html that opens from file:// with no
 * network. Its CSP is the webview's (`default-src 'none'`, one script, no 'unsafe-inline', no
 * eval): the script and the style sheet are inline, allowed by their SHA-256 hashes, and the
 * figures sit in a JSON block no browser runs. Nothing in it is fetched: a page from file://
 * may not read data.json beside it, so that copy is for other programs.
 */
export function staticDashboardPage(input: StaticPageInput): string {
  // Inline, `</script` or `</style` in a bundle would end its element early.
  const script = stripSourceMap(input.script).replace(/<\/script/gi, '<\\/script');
  const style = stripSourceMap(input.style).replace(/<\/style/gi, '<\\/style');
  const page = htmlPage({
    title: 'Ideal State dashboard',
    csp: [['style-src', `'${sha256(style)}'`], ['script-src', `'${sha256(script)}'`], ['img-src', `'none'`], ['base-uri', `'none'`], ['form-action', `'none'`]],
    head: ['<meta name="referrer" content="no-referrer">', `<style>${style}</style>`],
    bodyAttributes: `data-source="${escapeAttribute(input.source)}"`,
    body: [`<script type="application/json" id="dashboard-data">${jsonForHtml(input.data)}</script>`, `<script>${script}</script>`],
  });
  return `${page}\n`;
}

/** JSON that cannot end its `<script>` block or open a comment: `<`, `>` and `&` as escapes. */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

function stripSourceMap(text: string): string {
  return text.replace(/\n?\/[/*]# sourceMappingURL=[^\n]*\s*$/, '');
}
