import { isMap, isPair, isScalar, isSeq, LineCounter, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { DATA_FILE_YAML_LIMITS, parseYamlBounded } from './yaml-bounded';

/** A problem in a data file, located so the user can jump to it and fix it. */
export interface DataFileProblem {
  readonly file: string;
  /** 1-based */
  readonly line: number;
  /** 1-based */
  readonly column: number;
  /** Dotted path of the offending field, when the problem is about one. */
  readonly field?: string;
  readonly message: string;
}

export type DataFileResult<T> = { ok: true; value: T } | { ok: false; problems: DataFileProblem[] };

export function formatProblem(p: DataFileProblem): string {
  return `${p.file}:${p.line}:${p.column}: ${p.field ? `${p.field}: ` : ''}${p.message}`;
}

/**
 * Parses a YAML data file and validates it against a schema. Syntax errors, schema
 * violations and the input limits (size, nesting depth, alias expansion: yaml-bounded.ts)
 * all come back as problems with file, line, column and field — never thrown.
 */
export function parseYamlDataFile<S extends z.ZodType>(file: string, text: string, schema: S): DataFileResult<z.output<S>> {
  const lineCounter = new LineCounter();
  const yaml = parseYamlBounded(text, lineCounter, DATA_FILE_YAML_LIMITS);
  if (yaml.errors.length > 0 || !yaml.document) {
    return { ok: false, problems: yaml.errors.map((e) => ({ file, line: e.line, column: e.col, message: e.message })) };
  }
  const doc = yaml.document;
  const data: unknown = yaml.value;
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    problems: parsed.error.issues.map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      const offset = offsetOf(doc, path);
      const pos = lineCounter.linePos(offset);
      return {
        file,
        line: pos.line,
        column: pos.col,
        field: path.length > 0 ? path.join('.') : undefined,
        message: issue.message,
      };
    }),
  };
}

/** Start offset of the deepest node on `path` that exists (the key, when the value is missing). */
function offsetOf(doc: Document, path: readonly (string | number)[]): number {
  let node: unknown = doc.contents;
  let offset = rangeStart(node) ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === String(segment));
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
      offset = rangeStart(node) ?? offset;
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      offset = rangeStart(node) ?? offset;
    } else {
      break;
    }
  }
  return offset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
