import { LineCounter, parseDocument, isMap, isSeq, isScalar } from 'yaml';
import { diagnostic, rangeOn, type PrdDiagnostic } from '../diagnostics';
import type { SourceLine } from '../lines';
import type { IsaProbe, IsaSection } from './model';

/**
 * The Test Strategy, in either of the forms ISAs use: the table (`isc | type | check |
 * threshold | tool | anchors_to | severity`, the column order LifeOS's parser reads), or a
 * fenced YAML list of `isc`/`type`/`check`/`threshold`/`tool` entries.
 */
const POSITIONAL = ['isc', 'type', 'check', 'threshold', 'tool', 'anchors_to', 'severity'] as const;
type Column = (typeof POSITIONAL)[number] | 'other';

const HEADER_NAMES: Record<string, Column> = {
  isc: 'isc',
  claim: 'isc',
  id: 'isc',
  criterion: 'isc',
  type: 'type',
  check: 'check',
  property: 'check',
  threshold: 'threshold',
  runs: 'threshold',
  tool: 'tool',
  anchors_to: 'anchors_to',
  'anchors to': 'anchors_to',
  severity: 'severity',
};

const SEVERITIES = new Set(['critical', 'normal']);

/** Cells of a `| a | b |` row; `\|` is a pipe inside a cell. */
export function tableCells(line: string): string[] {
  let body = line.trim();
  if (body.startsWith('|')) body = body.slice(1);
  if (body.endsWith('|') && !body.endsWith('\\|')) body = body.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < body.length; i++) {
    const ch = body[i]!;
    if (ch === '\\' && body[i + 1] === '|') {
      cell += '|';
      i++;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/** Backticks around a whole cell are formatting, as in LifeOS's parser: `` `bun test x` `` runs `bun test x`. */
export function unticked(cell: string): string {
  const m = /^(`+)([^`](?:.*[^`])?)\1$/.exec(cell.trim());
  return m ? m[2]!.trim() : cell.trim();
}

/** `|---|:--:|`: every cell dashes with optional colons (cell by cell: one regex over the row backtracks on long runs of blanks). */
function isSeparatorRow(line: string): boolean {
  return tableCells(line).every((c) => /^:?-{2,}:?$/.test(c));
}

export function readStrategy(lines: readonly SourceLine[], structural: readonly boolean[], section: IsaSection | undefined, diagnostics: PrdDiagnostic[]): IsaProbe[] {
  if (!section) return [];
  const probes: IsaProbe[] = [];
  let columns: Column[] | undefined;
  for (let i = section.line + 1; i < section.end; i++) {
    const text = lines[i]!.text;
    // The outline marks a fence's own lines as not structural; the walk starts outside one (at a heading) and jumps over each.
    const fence = /^ {0,3}(`{3,}|~{3,})[ \t]*([A-Za-z]*)/.exec(text);
    if (fence) {
      i = readFenced(lines, i, section.end, fence[1]!, /^ya?ml$/i.test(fence[2]!), probes, diagnostics);
      columns = undefined;
      continue;
    }
    if (!structural[i]) continue;
    if (!text.trimStart().startsWith('|')) {
      columns = undefined; // a table ends at the first line that is not a row
      continue;
    }
    if (isSeparatorRow(text)) continue;
    const cells = tableCells(text);
    const first = cells[0]!.toLowerCase();
    if (!columns && HEADER_NAMES[first] === 'isc') {
      columns = cells.map((c) => HEADER_NAMES[c.toLowerCase().replace(/`/g, '')] ?? 'other');
      continue;
    }
    const named = columns ?? [...POSITIONAL];
    if (cells.length > named.length) {
      // A `|` in a command that was not written `\|` splits the command: running what is left could pass for the wrong reason.
      diagnostics.push(diagnostic('error', 'probe-cells', rangeOn(i, 0, text.length), `this row has ${cells.length} cells where the Test Strategy has ${named.length} columns; write a pipe inside a cell as \\| (e.g. \`cli \\| jq .\`)`));
    }
    probes.push(rowProbe(cells, named, i));
  }
  return probes;
}

function rowProbe(cells: string[], columns: Column[], line: number): IsaProbe {
  const get = (name: Column) => {
    const k = columns.indexOf(name);
    return k >= 0 && k < cells.length ? cells[k]! : '';
  };
  let severity = get('severity');
  // Read as severity only when it is one bare word (LifeOS: a shell pipe that was not escaped shifts cells right).
  if (severity && !/^[A-Za-z]+$/.test(severity)) severity = '';
  return {
    isc: unticked(get('isc')),
    line,
    type: unticked(get('type')).toLowerCase(),
    check: get('check'),
    threshold: get('threshold'),
    tool: unticked(get('tool')),
    ...(get('anchors_to') ? { anchorsTo: get('anchors_to') } : {}),
    ...(severity ? { severity: severity.toLowerCase() } : {}),
    form: 'table',
  };
}

export function isKnownSeverity(s: string): boolean {
  return SEVERITIES.has(s);
}

/** A fenced block (read when it is YAML): returns the line of the closing fence. */
function readFenced(lines: readonly SourceLine[], open: number, end: number, fence: string, yaml: boolean, probes: IsaProbe[], diagnostics: PrdDiagnostic[]): number {
  let close = open + 1;
  const closer = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`);
  while (close < end && !closer.test(lines[close]!.text)) close++;
  if (!yaml) return close;
  const text = lines.slice(open + 1, close).map((l) => l.text).join('\n');
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, uniqueKeys: false });
  if (doc.errors.length > 0) {
    // Written as YAML, but not strict YAML (`: ` or `[` inside a value, `|reads|`): read it as the person meant it, line by line.
    const e = doc.errors[0]!;
    const at = e.linePos?.[0];
    const message = `the Test Strategy's YAML is not strict YAML (${e.message.split('\n')[0]!.replace(/:$/, '')}), so it was read line by line as "key: value" entries; quote a value that holds ": ", " #", or starts with [ { | > to make it strict`;
    diagnostics.push(diagnostic('warning', 'test-strategy-yaml', rangeOn(open + 1 + (at ? at.line - 1 : 0), 0), message));
    probes.push(...readYamlLines(lines, open + 1, close));
    return close;
  }
  if (!isSeq(doc.contents)) {
    if (doc.contents !== null) diagnostics.push(diagnostic('warning', 'test-strategy-yaml', rangeOn(open, 0), 'a YAML Test Strategy is a list of entries ("- isc: ISC-1", "type: bash", …); this block is not read'));
    return close;
  }
  for (const item of doc.contents.items) {
    const at = item && typeof item === 'object' && 'range' in item && item.range ? counter.linePos(item.range[0]).line - 1 : 0;
    const line = open + 1 + at;
    if (!isMap(item)) {
      diagnostics.push(diagnostic('warning', 'test-strategy-yaml', rangeOn(line, 0), 'this Test Strategy entry is not a mapping of isc, type, check, threshold and tool; it is not read'));
      continue;
    }
    const field = (key: string) => {
      const v = item.get(key, true);
      return isScalar(v) && v.value !== null && v.value !== undefined ? String(v.value).trim() : '';
    };
    const severity = field('severity');
    probes.push({
      isc: field('isc') || field('claim') || field('id'),
      line,
      type: field('type').toLowerCase(),
      check: field('check') || field('property'),
      threshold: field('threshold') || field('runs'),
      tool: unticked(field('tool')),
      ...(field('anchors_to') ? { anchorsTo: field('anchors_to') } : {}),
      ...(severity ? { severity: severity.toLowerCase() } : {}),
      form: 'yaml',
    });
  }
  return close;
}

const ENTRY = /^([ \t]*)-[ \t]+([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?$/;
const FIELD = /^([ \t]+)([A-Za-z_][\w-]*)[ \t]*:(?:[ \t]+(.*))?$/;

/**
 * The tolerant reading of a YAML Test Strategy that a strict parser refuses: `- isc: …` opens
 * an entry, `  key: value` adds a field whose value is the rest of the line as written (outer
 * quotes dropped), a block scalar (`|`, `>`) takes the more indented lines after it, and a
 * more indented line goes on with the value above. Linear, one look per line.
 */
function readYamlLines(lines: readonly SourceLine[], from: number, to: number): IsaProbe[] {
  const entries: { line: number; fields: Map<string, string> }[] = [];
  let current: { line: number; fields: Map<string, string> } | undefined;
  let last: { key: string; indent: number; block: boolean } | undefined;
  for (let i = from; i < to; i++) {
    const text = lines[i]!.text;
    if (text.trim() === '' || text.trim().startsWith('#')) continue;
    const entry = ENTRY.exec(text);
    const field = entry ? undefined : FIELD.exec(text);
    const indent = text.length - text.trimStart().length;
    if (current && last && indent > last.indent && (last.block || !field)) {
      const was = current.fields.get(last.key) ?? '';
      current.fields.set(last.key, was ? `${was}${last.block ? '\n' : ' '}${text.trim()}` : text.trim());
      continue;
    }
    if (entry) {
      current = { line: i, fields: new Map() };
      entries.push(current);
      last = set(current.fields, entry[2]!, entry[3], entry[1]!.length + 2);
    } else if (field && current) {
      last = set(current.fields, field[2]!, field[3], field[1]!.length);
    }
  }
  return entries.map(({ line, fields }) => {
    const get = (...keys: string[]) => keys.map((k) => fields.get(k) ?? '').find((v) => v !== '') ?? '';
    const severity = get('severity');
    return {
      isc: unticked(get('isc', 'claim', 'id')),
      line,
      type: get('type').toLowerCase(),
      check: get('check', 'property'),
      threshold: get('threshold', 'runs'),
      tool: unticked(get('tool')),
      ...(get('anchors_to') ? { anchorsTo: get('anchors_to') } : {}),
      ...(/^[A-Za-z]+$/.test(severity) ? { severity: severity.toLowerCase() } : {}),
      form: 'yaml' as const,
    };
  });
}

function set(fields: Map<string, string>, key: string, raw: string | undefined, indent: number): { key: string; indent: number; block: boolean } {
  const value = (raw ?? '').trim();
  const block = /^[|>][-+]?\d*$/.test(value);
  const quoted = /^(["'])(.*)\1$/.exec(value);
  fields.set(key, block ? '' : quoted ? quoted[2]! : value);
  return { key, indent, block };
}
