import { redactEvidence } from '../../verify/secret-env';
import type { ReportInput } from './report-types';

/**
 * Escaping for each place a report's text goes: a criterion's text and a command's
 * output are the workspace's words, so they must never end a table cell, open a link or an
 * image, or drive the terminal.
 */

/** C0 controls (but tab and line breaks), DEL and C1 controls: what a terminal or a Markdown view would act on. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

/** A control character as something one can see: its Unicode control picture (ESC → ␛), or `\u{…}` for DEL and C1. */
export function visibleControls(s: string): string {
  return s.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return code < 0x20 ? String.fromCharCode(0x2400 + code) : code === 0x7f ? '\u2421' : `\\u{${code.toString(16)}}`;
  });
}

/** ASCII punctuation Markdown (GFM) acts on in inline text; each is backslash-escaped. `\` first, so `\|` cannot become an escaped backslash and a cell break. */
const MARKDOWN_PUNCTUATION = /[\\`*_{}[\]()#+!|~]/g;

/**
 * Text inside a GFM table cell: one line; backslashes escaped before pipes (cmark-gfm's cell
 * scanner reads `\\|` as an escaped backslash and a cell break); `[ ] ( ) !` escaped, so no
 * link or image is made; `< > &` as entities, so no HTML and no autolink; `://` and `www.`
 * broken by an escape, so a bare URL is not made a link; controls made visible.
 */
export function markdownCell(s: string): string {
  return visibleControls(s.replace(/\r\n|\n|\r|\u2028|\u2029/g, ' '))
    .replace(MARKDOWN_PUNCTUATION, (c) => `\\${c}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/:\/\//g, '\\:\\/\\/')
    .replace(/\bwww\./gi, (w) => `${w.slice(0, 3)}\\.`);
}

/** Text for a terminal line: controls made visible (no escape sequence reaches the terminal), one line. */
export function terminalText(s: string): string {
  return visibleControls(s.replace(/\r\n|\n|\r|\u2028|\u2029/g, ' '));
}

/**
 * The input as a report may show it: every free text (evidence, needs, criterion text, the
 * commands and why they were refused, the summary) without the credentials this process
 * holds. The results are already redacted where they were made (verify-criteria.ts); this
 * catches what a criterion's own text or a command line carries.
 */
export function redactedInput(input: ReportInput): ReportInput {
  const clean = (s: string) => redactEvidence(s).text;
  const set = input.set;
  return {
    ...input,
    file: clean(input.file),
    set: {
      ...set,
      summary: clean(set.summary),
      results: set.results.map((r) => ({ ...r, evidence: clean(r.evidence), ...(r.repairTarget !== undefined ? { repairTarget: clean(r.repairTarget) } : {}), ...(r.actual !== undefined ? { actual: clean(r.actual) } : {}) })),
      ...(set.commands
        ? { commands: { approved: set.commands.approved.map(clean), refused: set.commands.refused.map((c) => ({ command: clean(c.command), reason: clean(c.reason) })) } }
        : {}),
    },
    info: (id) => {
      const c = input.info(id);
      return c ? { ...c, text: clean(c.text) } : c;
    },
  };
}

/** "3 credentials were redacted from the evidence", or nothing. */
export function redactionNote(redactions: number | undefined): string | undefined {
  return redactions ? `${redactions} credential${redactions === 1 ? ' was' : 's were'} redacted from the evidence` : undefined;
}
