import * as fs from 'node:fs/promises';
import { diagnostic, rangeOn, type PrdDiagnostic } from '../prd/diagnostics';
import { PRD_LIMITS, sizeText } from '../prd/limits';
import { readRegularText } from '../verify/safe-read';

/**
 * A PRD's text, unless it cannot be read. The parser judges the size limit (in characters,
 * as the editor does); a file too large to be within it however it is encoded (4 bytes a
 * character at most) is refused before it is read, with the same kind of located diagnostic.
 */
export async function readPrdFile(file: string): Promise<{ ok: true; text: string } | { ok: false; reason: string; diagnostic?: PrdDiagnostic }> {
  try {
    const size = (await fs.stat(file)).size;
    if (size > PRD_LIMITS.maxChars * 4) {
      const message = `this file is ${sizeText(size)}, over the ${sizeText(PRD_LIMITS.maxChars)} a PRD may have, and is not read; split it or move long content out of it`;
      return { ok: false, reason: message, diagnostic: diagnostic('error', 'prd-too-large', rangeOn(0, 0), message) };
    }
    // Only a regular file is read: a FIFO in a PRD's place would hang the verification.
    const read = await readRegularText(file, { maxBytes: PRD_LIMITS.maxChars * 4 });
    return read.ok ? read : { ok: false, reason: read.reason === 'absent' ? 'ENOENT' : read.message };
  } catch (error) {
    return { ok: false, reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
  }
}
