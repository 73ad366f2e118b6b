import type { Migration } from './durable-database';

/**
 * The schema, one numbered step at a time. A step is never edited once released;
 * change the schema by appending a step. Every table keeps its entity as validated
 * JSON in `data`, with the columns that queries filter or sort on beside it.
 */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'runs and their work',
    sql: `
      CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        effort TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX runs_by_state ON runs (state, updated_at);
      CREATE TABLE criteria (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        version INTEGER NOT NULL,
        id TEXT NOT NULL,
        kind TEXT NOT NULL,
        status TEXT NOT NULL,
        outcome TEXT,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, version, id)
      );
      CREATE TABLE packets (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        iteration INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, id)
      );
      CREATE TABLE candidates (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        packet_id TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, id)
      );
      CREATE TABLE verification_reports (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        iteration INTEGER NOT NULL,
        created_at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, id)
      );
      CREATE TABLE decisions (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, id)
      );
      CREATE TABLE run_events (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        kind TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
    `,
  },
  {
    version: 2,
    name: 'learning and PRD index',
    sql: `
      CREATE TABLE ratings (
        id TEXT PRIMARY KEY,
        run_id TEXT,
        timestamp TEXT NOT NULL,
        rating INTEGER NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX ratings_by_time ON ratings (timestamp);
      CREATE TABLE reflections (
        id TEXT PRIMARY KEY,
        run_id TEXT,
        timestamp TEXT NOT NULL,
        category TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX reflections_by_time ON reflections (timestamp);
      CREATE TABLE prd_index (
        path TEXT PRIMARY KEY,
        prd_id TEXT NOT NULL,
        run_id TEXT,
        updated_at TEXT NOT NULL,
        data TEXT NOT NULL
      );
    `,
  },
  {
    version: 3,
    name: 'run steps and file checkpoints',
    sql: `
      CREATE TABLE run_steps (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
      );
      CREATE TABLE file_checkpoints (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, path)
      );
    `,
  },
  {
    version: 4,
    name: 'what model servers refused',
    sql: `
      CREATE TABLE model_lessons (
        provider_id TEXT NOT NULL,
        model TEXT NOT NULL,
        param TEXT NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (provider_id, model, param)
      );
    `,
  },
  {
    version: 5,
    name: 'stale marks of PASS verdicts',
    sql: `
      CREATE TABLE stale_marks (
        run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        criterion_id TEXT NOT NULL,
        at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, criterion_id)
      );
    `,
  },
  {
    version: 6,
    name: 'loops over many artifacts',
    sql: `
      CREATE TABLE loops (
        id TEXT PRIMARY KEY,
        state TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX loops_by_state ON loops (state, updated_at);
      CREATE TABLE loop_artifacts (
        loop_id TEXT NOT NULL REFERENCES loops (id) ON DELETE CASCADE,
        file TEXT NOT NULL,
        shard INTEGER NOT NULL,
        status TEXT NOT NULL,
        iteration INTEGER NOT NULL,
        run_id TEXT,
        claim_owner TEXT,
        claim_expires TEXT,
        updated_at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (loop_id, file)
      );
      CREATE INDEX loop_artifacts_by_run ON loop_artifacts (run_id);
    `,
  },
  {
    version: 7,
    name: 'the done gate verdicts, and indexes the dashboard sums from',
    sql: `
      CREATE TABLE gate_outcomes (
        id TEXT PRIMARY KEY,
        at TEXT NOT NULL,
        host TEXT NOT NULL,
        verdict TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE INDEX gate_outcomes_by_time ON gate_outcomes (at);
      -- The dashboard's sums read these columns of every row: from the index alone, not the rows' JSON.
      CREATE INDEX criteria_verdicts ON criteria (run_id, version, outcome);
      CREATE INDEX run_events_usage ON run_events (kind, run_id, input_tokens, output_tokens, cost_usd);
    `,
  },
];

export const LATEST_SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;
