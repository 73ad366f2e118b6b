import * as fs from 'node:fs';
import { crc32 } from './crc32';

/**
 * An append-only file of committed changes. Each record is framed as
 * `[u32 length][u32 crc32][payload]` and synced to disk before the commit is
 * acknowledged, so a commit costs one small write whatever the database's size.
 */
const HEADER_BYTES = 8;
/** Larger than any sane record; a length past this means the frame is garbage. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export type JournalTail =
  /** Every byte belongs to a complete, valid record. */
  | { kind: 'clean' }
  /**
   * The last record is cut short: a commit interrupted before it was acknowledged, or a file
   * cut by something else (then later commits are gone too). `partial` is what there is of it;
   * `later`, valid records found past it (a piece cut out of the middle).
   */
  | { kind: 'torn'; bytes: number; partial: Buffer; later: Buffer[] }
  /**
   * A complete record failed its checksum or framing: the file was damaged. `later` are the
   * valid records found past the damage, so the loss can be counted.
   */
  | { kind: 'corrupt'; offset: number; bytes: number; later: Buffer[] };

export interface JournalContents {
  readonly records: Buffer[];
  readonly validBytes: number;
  readonly tail: JournalTail;
}

export function readJournal(path: string): JournalContents {
  let data: Buffer;
  try {
    data = fs.readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { records: [], validBytes: 0, tail: { kind: 'clean' } };
    throw error;
  }
  const records: Buffer[] = [];
  let offset = 0;
  while (offset < data.length) {
    const remaining = data.length - offset;
    const torn = (): JournalContents => ({ records, validBytes: offset, tail: { kind: 'torn', bytes: remaining, partial: Buffer.from(data.subarray(offset + Math.min(HEADER_BYTES, remaining))), later: framesAfter(data, offset + 1) } });
    const corrupt = (): JournalContents => ({ records, validBytes: offset, tail: { kind: 'corrupt', offset, bytes: remaining, later: framesAfter(data, offset + 1) } });
    if (remaining < HEADER_BYTES) return torn();
    const length = data.readUInt32LE(offset);
    const checksum = data.readUInt32LE(offset + 4);
    if (length === 0 || length > MAX_RECORD_BYTES) return corrupt();
    if (remaining < HEADER_BYTES + length) return torn();
    const payload = data.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length);
    if (crc32(payload) !== checksum) return corrupt();
    records.push(Buffer.from(payload));
    offset += HEADER_BYTES + length;
  }
  return { records, validBytes: offset, tail: { kind: 'clean' } };
}

/** Checksum work spent looking for records past damage, so a huge garbage file cannot take minutes. */
const MAX_SCAN_BYTES = 256 * 1024 * 1024;

/**
 * The valid records past a damaged spot: each offset is tried as a frame until one's length
 * fits and its checksum matches, then the scan follows the frames from there. A random
 * match needs a 32-bit checksum to agree, so what it finds is real records.
 */
function framesAfter(data: Buffer, from: number): Buffer[] {
  const found: Buffer[] = [];
  let budget = MAX_SCAN_BYTES;
  let offset = from;
  while (offset + HEADER_BYTES < data.length && budget > 0) {
    const length = data.readUInt32LE(offset);
    if (length > 0 && length <= MAX_RECORD_BYTES && offset + HEADER_BYTES + length <= data.length) {
      const payload = data.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length);
      budget -= length;
      if (crc32(payload) === data.readUInt32LE(offset + 4)) {
        found.push(Buffer.from(payload));
        offset += HEADER_BYTES + length;
        continue;
      }
    }
    offset++;
  }
  return found;
}

export class JournalWriter {
  private fd: number;
  private size: number;

  /** Opens for appending after `validBytes`, cutting off anything beyond (a torn tail). */
  constructor(path: string, validBytes: number) {
    this.fd = fs.openSync(path, fs.constants.O_CREAT | fs.constants.O_RDWR);
    fs.ftruncateSync(this.fd, validBytes);
    fs.fsyncSync(this.fd);
    this.size = validBytes;
  }

  get bytes(): number {
    return this.size;
  }

  /** Appends one record and waits until it is on disk. */
  append(payload: Buffer): void {
    const frame = Buffer.allocUnsafe(HEADER_BYTES + payload.length);
    frame.writeUInt32LE(payload.length, 0);
    frame.writeUInt32LE(crc32(payload), 4);
    payload.copy(frame, HEADER_BYTES);
    let written = 0;
    while (written < frame.length) written += fs.writeSync(this.fd, frame, written, frame.length - written, this.size + written);
    fs.fdatasyncSync(this.fd);
    this.size += frame.length;
  }

  /** Drops every record: called once a checkpoint holds them all. */
  reset(): void {
    fs.ftruncateSync(this.fd, 0);
    fs.fsyncSync(this.fd);
    this.size = 0;
  }

  close(): void {
    fs.closeSync(this.fd);
  }
}
