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
  /** The last record was cut short: a commit interrupted before it was acknowledged. */
  | { kind: 'torn'; bytes: number }
  /** A complete record failed its checksum or framing: the file was damaged. */
  | { kind: 'corrupt'; offset: number; bytes: number };

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
    if (remaining < HEADER_BYTES) return { records, validBytes: offset, tail: { kind: 'torn', bytes: remaining } };
    const length = data.readUInt32LE(offset);
    const checksum = data.readUInt32LE(offset + 4);
    if (length === 0 || length > MAX_RECORD_BYTES) {
      return { records, validBytes: offset, tail: { kind: 'corrupt', offset, bytes: remaining } };
    }
    if (remaining < HEADER_BYTES + length) return { records, validBytes: offset, tail: { kind: 'torn', bytes: remaining } };
    const payload = data.subarray(offset + HEADER_BYTES, offset + HEADER_BYTES + length);
    if (crc32(payload) !== checksum) {
      return { records, validBytes: offset, tail: { kind: 'corrupt', offset, bytes: remaining } };
    }
    records.push(Buffer.from(payload));
    offset += HEADER_BYTES + length;
  }
  return { records, validBytes: offset, tail: { kind: 'clean' } };
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
