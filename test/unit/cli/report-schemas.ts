import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
// libxml2's xmllint compiled to WebAssembly, so CI needs no system package (kept external by esbuild.mjs).
import { validateXML } from 'xmllint-wasm';
import { REPO_ROOT } from '../support/repo-root';

/**
 * The real schemas CI systems hold the reports to (test/fixtures/schemas/README.md says where
 * each comes from): OASIS's SARIF 2.1.0 JSON schema and the JUnit XSD Jenkins' xUnit plugin
 * validates every JUnit file against (a file that fails it is skipped, not read).
 */
const SCHEMAS = path.resolve(REPO_ROOT, 'test/fixtures/schemas');

let sarif: ValidateFunction | undefined;

/**
 * The OASIS errata01 schema declares JSON Schema draft-04, which Ajv 8 does not ship. It uses
 * nothing whose meaning changed after draft-04 (no boolean exclusiveMinimum/Maximum; only its
 * own "id", which later drafts spell "$id"), so it is compiled as draft-07 once those two
 * spellings are changed in memory; the file stays byte for byte as OASIS publishes it.
 */
function sarifValidator(): ValidateFunction {
  if (sarif) return sarif;
  const { $schema, id, ...schema } = JSON.parse(fs.readFileSync(path.join(SCHEMAS, 'sarif-schema-2.1.0.json'), 'utf8')) as Record<string, unknown>;
  if ($schema !== 'http://json-schema.org/draft-04/schema#' || typeof id !== 'string') throw new Error(`sarif-schema-2.1.0.json: expected the draft-04 errata01 schema, found ${String($schema)}`);
  const draft4Only = (node: unknown): boolean =>
    Array.isArray(node) ? node.some(draft4Only) : typeof node === 'object' && node !== null && Object.entries(node).some(([k, v]) => (/^exclusiveM(in|ax)imum$/.test(k) && typeof v === 'boolean') || draft4Only(v));
  if (draft4Only(schema)) throw new Error('sarif-schema-2.1.0.json uses a draft-04 boolean exclusiveMinimum/Maximum: compile it with ajv-draft-04 instead');
  // strict, except two things the official schema does itself: union types (["array", "null"]) and a
  // "required" listing properties it defines elsewhere.
  const ajv = new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, strictRequired: false });
  addFormats(ajv); // date-time, uri and uri-reference are checked, as the schema asks
  sarif = ajv.compile({ $id: id, ...schema });
  return sarif;
}

/** The SARIF log's schema errors, empty when it is valid SARIF 2.1.0. */
export function sarifErrors(log: unknown): string[] {
  const validate = sarifValidator();
  return validate(log) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** The JUnit XML's schema errors (libxml2's messages, with line numbers), empty when it is valid. */
export async function junitErrors(xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: { fileName: 'report.xml', contents: xml },
    schema: { fileName: 'junit-10.xsd', contents: fs.readFileSync(path.join(SCHEMAS, 'junit-10.xsd'), 'utf8') },
  });
  return result.valid ? [] : result.errors.map((e) => e.rawMessage);
}
