import { DurableDatabase, type SqlParam, type SqlStatement, type StoreWarning } from './durable-database';
import type { RowReader, StatementSink } from './json-table';
import { MIGRATIONS } from './migrations';
import { foldPending } from './pending';
import { LoopRepository } from './loops';
import { ModelLessonRepository } from './model-lessons';
import {
  candidateTable,
  CriterionRepository,
  decisionTable,
  packetTable,
  prdIndexTable,
  ratingTable,
  reflectionTable,
  reportTable,
  RunRepository,
  runEventTable,
} from './repositories';
import { checkpointTable, runStepTable } from './run-tables';
import { StaleMarkRepository } from './stale-marks';
import { gateOutcomeTable } from './gate-outcomes';

export { DATABASE_FILE_NAME } from './store-paths';

export interface StoreOptions {
  /** The database file. */
  readonly file: string;
  readonly wasmPath?: string;
  readonly checkpointIdleMs?: number;
  readonly checkpointJournalBytes?: number;
  /** A reader whatever the lock says: nothing written, pending records left for the writer. */
  readonly readOnly?: boolean;
}

/** Every repository, bound to one sink: the store's own (commit now) or a batch's. */
export class Repositories {
  readonly runs: RunRepository;
  readonly criteria: CriterionRepository;
  readonly packets;
  readonly candidates;
  readonly reports;
  readonly decisions;
  readonly events;
  readonly ratings;
  readonly reflections;
  readonly prdIndex;
  readonly steps;
  readonly checkpoints;
  readonly modelLessons: ModelLessonRepository;
  readonly staleMarks: StaleMarkRepository;
  readonly loops: LoopRepository;
  readonly gateOutcomes;

  constructor(reader: RowReader, sink: StatementSink) {
    this.runs = new RunRepository(reader, sink);
    this.criteria = new CriterionRepository(reader, sink);
    this.packets = packetTable(reader, sink);
    this.candidates = candidateTable(reader, sink);
    this.reports = reportTable(reader, sink);
    this.decisions = decisionTable(reader, sink);
    this.events = runEventTable(reader, sink);
    this.ratings = ratingTable(reader, sink);
    this.reflections = reflectionTable(reader, sink);
    this.prdIndex = prdIndexTable(reader, sink);
    this.steps = runStepTable(reader, sink);
    this.checkpoints = checkpointTable(reader, sink);
    this.modelLessons = new ModelLessonRepository(reader, sink);
    this.staleMarks = new StaleMarkRepository(reader, sink);
    this.loops = new LoopRepository(reader, sink);
    this.gateOutcomes = gateOutcomeTable(reader, sink);
  }
}

/**
 * The workspace's Ideal State database. Each repository write is one durable commit;
 * `batch` groups several writes into one.
 */
export class Store extends Repositories {
  private batchTarget: SqlStatement[] | undefined;
  private batchRepositories: Repositories | undefined;

  /** Problems met folding in the pending writes of one-shot processes (src/store/pending.ts). */
  private readonly pendingWarnings: StoreWarning[] = [];

  private constructor(private readonly database: DurableDatabase) {
    super(
      { query: <T>(sql: string, params?: readonly SqlParam[]) => database.query<T>(sql, params) },
      { commit: (statements) => database.transact(statements) },
    );
  }

  static async open(options: StoreOptions): Promise<Store> {
    const database = await DurableDatabase.open({ ...options, migrations: MIGRATIONS });
    const store = new Store(database);
    // What a one-shot process left for the writer (a stop hook's verification) comes in first.
    if (!store.readOnly) for (const message of foldPending(store, options.file).problems) store.pendingWarnings.push({ kind: 'pending-write', message });
    return store;
  }

  /**
   * A read-only query of the store's tables, for reports that sum over many rows in SQL (the
   * dashboard): the figures without reading and validating every row as an entity.
   */
  read<T>(sql: string, params?: readonly SqlParam[]): T[] {
    return this.database.query<T>(sql, params);
  }

  get location(): string {
    return this.database.location;
  }
  get readOnly(): boolean {
    return this.database.readOnly;
  }
  get schemaVersion(): number {
    return this.database.schemaVersion;
  }
  /** What went wrong while opening (damaged files moved aside, read-only mode), for the user. */
  get warnings(): readonly StoreWarning[] {
    return this.pendingWarnings.length === 0 ? this.database.warnings : [...this.database.warnings, ...this.pendingWarnings];
  }
  get journalBytes(): number {
    return this.database.journalBytes;
  }

  /** Runs `write` against repositories that collect statements, then commits them as one. */
  batch(write: (repositories: Repositories) => void): void {
    const statements: SqlStatement[] = [];
    // The collecting repositories are built once and pointed at each batch's list (building
    // them per batch showed in profiles); a batch inside a batch gets its own, as before.
    const reuse = this.batchTarget === undefined;
    const repositories = reuse ? (this.batchRepositories ??= this.collectingRepositories(() => this.batchTarget)) : this.collectingRepositories(() => statements);
    if (reuse) this.batchTarget = statements;
    try {
      write(repositories);
    } finally {
      if (reuse) this.batchTarget = undefined;
    }
    if (statements.length > 0) this.database.transact(statements);
  }

  private collectingRepositories(target: () => SqlStatement[] | undefined): Repositories {
    return new Repositories(
      { query: <T>(sql: string, params?: readonly SqlParam[]) => this.database.query<T>(sql, params) },
      {
        commit: (s) => {
          const list = target();
          if (!list) throw new Error('A batch repository was used after its batch ended.');
          list.push(...s);
        },
      },
    );
  }

  checkpoint(): void {
    this.database.checkpoint();
  }

  close(): void {
    this.database.close();
  }
}

// Where stores live (store-paths.ts, which loads no SQLite); re-exported for every caller.
export { cliDataFolder, defaultCliStoreFile } from './store-paths';
