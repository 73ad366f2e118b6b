import type { Database } from 'sql.js';
import type { SqlParam, SqlStatement, StoreWarning } from './sql-types';
import { readJournal } from './journal';

export interface JournalRecord {
  readonly seq: number;
  readonly statements: SqlStatement[];
}

/** Where the journal stopped being usable, and what can be known of what was lost. */
export interface JournalDamage {
  /** `torn`: it ends inside a record and nothing valid follows; `corrupt`: anything else. */
  readonly kind: 'torn' | 'corrupt';
  /** Where the usable part ends. */
  readonly offset: number;
  readonly droppedBytes: number;
  /** Complete commits recovered from the journal, and the last one's number. */
  readonly kept: number;
  readonly lastSeq: number | undefined;
  /** The number of the commit the damaged or cut record carried, when its start is readable. */
  readonly damagedSeq: number | undefined;
  /** Commits found whole past the damage: they cannot be applied across the gap, but they count. */
  readonly laterSeqs: readonly number[];
  /** Why a whole record could not be applied, when that was the damage. */
  readonly reason?: string;
}

export interface Replay {
  /** The highest commit number now in the database. */
  readonly lastSeq: number;
  /** Bytes of the journal that hold the applied records; the writer continues after them. */
  readonly validBytes: number;
  readonly damage: JournalDamage | undefined;
}

/** Applies the journal's records past the checkpoint to `db`, stopping at the first that cannot be. */
export function replayJournal(db: Database, journalPath: string, checkpointSeq: number): Replay {
  const contents = readJournal(journalPath);
  const tail = contents.tail;
  const fileBytes = contents.validBytes + (tail.kind === 'clean' ? 0 : tail.bytes);
  let lastSeq = checkpointSeq;
  let lastRecordSeq: number | undefined;
  let offset = 0;
  for (const [index, payload] of contents.records.entries()) {
    const record = parseRecord(payload);
    const failure = record ? applyRecord(db, record, checkpointSeq) : 'it is not a journal record';
    if (failure !== undefined) {
      const later = [...contents.records.slice(index + 1), ...(tail.kind === 'clean' ? [] : tail.later)];
      return {
        lastSeq,
        validBytes: offset,
        damage: { kind: 'corrupt', offset, droppedBytes: fileBytes - offset, kept: index, lastSeq: lastRecordSeq, damagedSeq: record?.seq, laterSeqs: seqsOf(later), reason: failure },
      };
    }
    lastSeq = Math.max(lastSeq, record!.seq);
    lastRecordSeq = record!.seq;
    offset += payload.length + 8;
  }
  if (tail.kind === 'clean') return { lastSeq, validBytes: contents.validBytes, damage: undefined };
  const laterSeqs = seqsOf(tail.later);
  return {
    lastSeq,
    validBytes: contents.validBytes,
    damage: {
      // A cut record with whole records after it is a piece missing from the middle: damage.
      kind: tail.kind === 'torn' && laterSeqs.length === 0 ? 'torn' : 'corrupt',
      offset: contents.validBytes,
      droppedBytes: tail.bytes,
      kept: contents.records.length,
      lastSeq: lastRecordSeq,
      damagedSeq: tail.kind === 'torn' ? seqAtStart(tail.partial) : undefined,
      laterSeqs,
    },
  };
}

/**
 * What the user is told about a damaged journal. Nothing in it may claim fewer lost commits
 * than there were: what cannot be counted is said to be uncountable.
 */
export function journalDamageWarning(journalPath: string, damage: JournalDamage, checkpointSeq: number, copy: string | undefined): StoreWarning {
  const recovered = `${damage.kept} complete commit${damage.kept === 1 ? ' was' : 's were'} recovered${damage.lastSeq !== undefined ? ` (up to #${damage.lastSeq})` : ''}`;
  const where = copy ? ` A copy of the journal as found is at ${copy}.` : ' This process opened the store read-only and changed nothing.';
  const base = damage.lastSeq ?? checkpointSeq;
  const highest = Math.max(damage.damagedSeq ?? 0, ...damage.laterSeqs);
  if (damage.kind === 'torn') {
    return {
      kind: 'torn-journal',
      message:
        `The Ideal State journal ${journalPath} ends in the middle of a commit${damage.damagedSeq !== undefined ? ` (#${damage.damagedSeq})` : ''}: ${recovered}, and the ${damage.droppedBytes} bytes after the last complete commit were dropped. ` +
        'If its writer was stopped while writing that commit, the commit was never acknowledged and nothing is lost; if the journal was cut or damaged, that commit and any after it are lost, and how many cannot be told from what is left.' +
        where,
      ...(copy ? { movedTo: copy } : {}),
    };
  }
  const lost =
    highest > base
      ? ` They hold commits up to #${highest}, so at least ${highest - base} commit${highest - base === 1 ? ' is' : 's are'} lost (#${base + 1}–#${highest}).`
      : ' No complete commit could be read in them, so how many commits they held cannot be told.';
  return {
    kind: 'corrupt-journal',
    message: `The Ideal State journal ${journalPath} is damaged at byte ${damage.offset}${damage.reason ? ` (${damage.reason})` : ''}: ${recovered}, and the ${damage.droppedBytes} bytes from there on were dropped.${lost}${where}`,
    ...(copy ? { movedTo: copy } : {}),
  };
}

function parseRecord(payload: Buffer): JournalRecord | undefined {
  try {
    const record = JSON.parse(payload.toString('utf8')) as JournalRecord;
    if (typeof record.seq === 'number' && Array.isArray(record.statements)) return record;
  } catch {
    // fall through: reported as damage by the caller
  }
  return undefined;
}

function seqsOf(payloads: readonly Buffer[]): number[] {
  return payloads.map(parseRecord).flatMap((r) => (r ? [r.seq] : []));
}

/** The commit number at the start of a cut record (`{"seq":12,…`), if that much of it is there. */
function seqAtStart(partial: Buffer): number | undefined {
  const match = /^\{"seq":(\d+)[,}]/.exec(partial.subarray(0, 32).toString('utf8'));
  return match ? Number(match[1]) : undefined;
}

/** Applies one journal record unless the checkpoint already holds it; why not, if it fails. */
function applyRecord(db: Database, record: JournalRecord, checkpointSeq: number): string | undefined {
  if (record.seq <= checkpointSeq) return undefined;
  db.exec('BEGIN');
  try {
    for (const s of record.statements) runStatement(db, s);
    db.exec('COMMIT');
    return undefined;
  } catch (error) {
    db.exec('ROLLBACK');
    return `commit #${record.seq} could not be applied: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** One statement without the connection's cache: with parameters bound, or as a script. */
export function runStatement(db: Database, statement: SqlStatement): void {
  if (statement.params && statement.params.length > 0) db.run(statement.sql, statement.params as SqlParam[]);
  else db.exec(statement.sql);
}
