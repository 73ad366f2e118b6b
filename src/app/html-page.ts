/**
 * The one HTML shell of every page Ideal State shows: the editor's webviews and the static
 * dashboard a browser opens from disk. Its Content-Security-Policy starts from
 * `default-src 'none'`, so a page loads only the sources it names, and the page has no
 * content of its own: its one script renders everything as text.
 */
export interface HtmlPage {
  /** The document title, for screen readers; escaped here. */
  readonly title: string;
  /** What the page may load beyond nothing, as `[directive, sources]` in the order they are written. */
  readonly csp: readonly (readonly [directive: string, sources: string])[];
  /** Lines of the head after the CSP and viewport: a style sheet, a referrer policy. */
  readonly head: readonly string[];
  /** Attributes of `<body>`, already escaped (escapeAttribute). */
  readonly bodyAttributes?: string;
  /** The body's lines: the page's script, and any data block it reads. */
  readonly body: readonly string[];
}

export function htmlPage(page: HtmlPage): string {
  const csp = [`default-src 'none'`, ...page.csp.map(([directive, sources]) => `${directive} ${sources}`)].join('; ');
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="UTF-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1.0">',
    ...page.head,
    `<title>${escapeAttribute(page.title)}</title>`,
    '</head>',
    page.bodyAttributes ? `<body ${page.bodyAttributes}>` : '<body>',
    ...page.body,
    '</body>',
    '</html>',
  ].join('\n');
}

/** The page of a webview bundle (media/dist/<entry>.js and .css), as the editor serves it. */
export interface BundlePage {
  readonly title: string;
  /** The webview's own origin (`webview.cspSource`): styles, images and fonts load from it alone. */
  readonly cspSource: string;
  /** Made for this render: the bundle is the one script that carries it. */
  readonly nonce: string;
  /** The bundle's script and style sheet, as webview URIs. */
  readonly script: string;
  readonly style: string;
}

/** A webview's page: one bundled script allowed by a nonce, styles, images and fonts from the webview's origin, no inline script or style. */
export function bundlePage(page: BundlePage): string {
  const own = page.cspSource;
  return htmlPage({
    title: page.title,
    csp: [['style-src', own], ['img-src', own], ['font-src', own], ['script-src', `'nonce-${page.nonce}'`]],
    head: [`<link rel="stylesheet" href="${page.style}">`],
    body: [`<script nonce="${page.nonce}" src="${page.script}"></script>`],
  });
}

export function escapeAttribute(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
