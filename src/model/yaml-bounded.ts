import { CST, isAlias, isMap, isScalar, Lexer, LineCounter, parseDocument, visit, type Document } from 'yaml';

/**
 * How much YAML Ideal State reads, and how deep. Every data file and a PRD's frontmatter
 * can come from a cloned repository, so none of them may hang the editor or the command
 * line or run it out of memory:
 *
 * - size: parsing is linear after the fixes below, but a bound keeps it a matter of seconds;
 * - depth: the `yaml` package composes nested collections recursively, and thousands of
 *   `[` make V8 crash the process (not only throw) near the stack limit, so depth is
 *   measured first with the package's lexer, which does not recurse;
 * - aliases: `maxAliasCount` stops an alias bomb (a billion laughs) while it expands;
 * - duplicate keys: the package's own check compares each key with every earlier one
 *   (40,000 keys took 38 s), so it is off and a set per mapping does the same job.
 */
export interface YamlLimits {
  readonly maxChars: number;
  readonly maxDepth: number;
  readonly maxAliasCount: number;
}

export const DATA_FILE_YAML_LIMITS: YamlLimits = { maxChars: 2 * 1024 * 1024, maxDepth: 64, maxAliasCount: 100 };

/** A problem with a 1-based position in the YAML text; `limit` when a bound was hit rather than a syntax rule. */
export interface YamlIssue {
  readonly offset: number;
  readonly line: number;
  readonly col: number;
  readonly message: string;
  readonly limit: boolean;
}

export interface BoundedYaml {
  /** Undefined when a bound stopped the text before the parser saw it. */
  readonly document?: Document.Parsed;
  readonly errors: YamlIssue[];
  readonly warnings: YamlIssue[];
  /** The plain value, when there is no error. */
  readonly value?: unknown;
}

/** Parses YAML within the limits; never throws, never recurses deeper than `maxDepth` levels of the text. */
export function parseYamlBounded(text: string, lineCounter: LineCounter, limits: YamlLimits = DATA_FILE_YAML_LIMITS): BoundedYaml {
  const at = (offset: number, message: string, limit: boolean): YamlIssue => ({ offset, ...positionIn(text, offset), message, limit });
  if (text.length > limits.maxChars) {
    return { errors: [at(0, `the YAML is ${sizeText(text.length)}, over the ${sizeText(limits.maxChars)} limit`, true)], warnings: [] };
  }
  const deep = tooDeep(text, limits.maxDepth);
  if (deep !== undefined) {
    return { errors: [at(deep, `the YAML nests more than ${limits.maxDepth} levels deep here; flatten it`, true)], warnings: [] };
  }
  const document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false, keepSourceTokens: false });
  const located = (offset: number, message: string, limit: boolean): YamlIssue => {
    const p = lineCounter.linePos(offset);
    return { offset, line: p.line, col: p.col, message, limit };
  };
  const errors = document.errors.map((e) => located(e.pos[0], firstLine(e.message), false));
  const warnings = document.warnings.map((w) => located(w.pos[0], firstLine(w.message), false));
  for (const offset of duplicateKeys(document)) errors.push(located(offset, 'Map keys must be unique', false));
  if (errors.length > 0) return { document, errors: errors.sort((a, b) => a.offset - b.offset), warnings };
  try {
    return { document, errors, warnings, value: document.toJS({ maxAliasCount: limits.maxAliasCount }) };
  } catch (error) {
    if (!/alias/i.test((error as Error).message)) return { document, errors: [located(0, firstLine((error as Error).message), false)], warnings };
    const message = `the aliases here expand to too many values (more than ${limits.maxAliasCount}); write the values out or use fewer aliases`;
    return { document, errors: [located(firstAlias(document) ?? 0, message, true)], warnings };
  }
}

/**
 * The offset where the text first nests deeper than `max`, from the lexer's tokens: each
 * open flow bracket is a level, and in block context each node that starts further right
 * than the one before it on the way down (a key, a `-` or `?` item, a value). It may count
 * a level too few (a sequence at its parent key's column) but never one too many.
 */
export function tooDeep(text: string, max: number): number | undefined {
  const columns: number[] = [];
  let flow = 0;
  let offset = 0;
  let lineStart = 0;
  let scalar = false;
  for (const token of new Lexer().lex(text)) {
    // The scalar marker, doc-mode and flow-error-end are the lexer's, not the text's.
    if (token === '\x1f') {
      scalar = true;
      continue;
    }
    if (token === '\x02' || token === '\x18') continue;
    const start = offset;
    offset += token.length;
    const type = scalar ? 'scalar' : CST.tokenType(token);
    scalar = false;
    const node = type === 'scalar' || type === 'alias' || type === 'single-quoted-scalar' || type === 'double-quoted-scalar' || type === 'block-scalar-header' || type === 'seq-item-ind' || type === 'explicit-key-ind';
    if (type === 'doc-start' || type === 'doc-end') {
      columns.length = 0;
      flow = 0;
    } else if (type === 'flow-seq-start' || type === 'flow-map-start') {
      flow++;
      if (columns.length + flow > max) return start;
    } else if (type === 'flow-seq-end' || type === 'flow-map-end') {
      flow = Math.max(0, flow - 1);
    } else if (node && flow === 0) {
      const column = start - lineStart;
      while (columns.length > 0 && columns[columns.length - 1]! >= column) columns.pop();
      columns.push(column);
      if (columns.length > max) return start;
    }
    const newline = token.lastIndexOf('\n');
    if (newline !== -1) lineStart = start + newline + 1;
  }
  return undefined;
}

/** Offsets of keys that repeat a scalar key earlier in the same mapping (what `uniqueKeys` would find, in linear time). */
function duplicateKeys(document: Document.Parsed): number[] {
  const out: number[] = [];
  visit(document, {
    Map(_, map) {
      if (!isMap(map)) return;
      const seen = new Set<string>();
      for (const pair of map.items) {
        if (!isScalar(pair.key)) continue;
        const value = pair.key.value;
        const key = `${typeof value}:${String(value)}`;
        if (seen.has(key)) out.push(pair.key.range?.[0] ?? 0);
        seen.add(key);
      }
    },
  });
  return out;
}

function firstAlias(document: Document.Parsed): number | undefined {
  let offset: number | undefined;
  visit(document, {
    Alias(_, node) {
      if (isAlias(node)) offset = node.range?.[0];
      return visit.BREAK;
    },
  });
  return offset;
}

/** 1-based line and column of an offset, for problems found before the parser counted lines. */
function positionIn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** A size for a message, rounded up, so a text just over a limit never reads as equal to it. */
export function sizeText(chars: number): string {
  return chars >= 1024 * 1024 ? `${Math.ceil((chars / 1024 / 1024) * 10) / 10} MB` : `${Math.ceil(chars / 1024)} KB`;
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
