/**
 * The schema of the file store, as numbered migrations: migration N brings a database
 * from `user_version` N-1 to N. The PostgreSQL store keeps the same tables and columns
 * (its own DDL), so the rules run unchanged on both; only `forwarded` is the file store's
 * alone, as only its servers forward writes.
 *
 * Times are integer milliseconds since the epoch. Labels are kept twice on purpose: as a
 * JSON array on the issue (read with it) and as rows of issue_labels (filtered on).
 */
/**
 * Liveness (docs/protocol.md, "Liveness"): when each session's agent last showed a sign
 * of life, and for each ended token who ended it when that was not its holder and when
 * its holder was told. The partial index holds only the losses nobody has been told
 * of yet, so looking for them at every tool call reads next to nothing. The same
 * statements in both stores, with their integer type.
 */
export function LIVENESS_MIGRATION(integer: 'INTEGER' | 'BIGINT'): readonly string[] {
  return [
    `ALTER TABLE sessions ADD COLUMN last_active_at ${integer}`,
    `UPDATE sessions SET last_active_at = started_at`,
    `ALTER TABLE tokens ADD COLUMN ended_by TEXT`,
    `ALTER TABLE tokens ADD COLUMN noticed_at ${integer}`,
    `CREATE INDEX tokens_unnoticed ON tokens(session) WHERE ended_by IS NOT NULL AND noticed_at IS NULL`,
  ];
}

export const SQLITE_MIGRATIONS: readonly (readonly string[])[] = [
  [
    `CREATE TABLE meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
    `CREATE TABLE issues (
      id INTEGER PRIMARY KEY,
      number INTEGER NOT NULL UNIQUE,
      key TEXT NOT NULL UNIQUE,
      title TEXT NOT NULL,
      body TEXT NOT NULL DEFAULT '',
      status TEXT NOT NULL,
      priority INTEGER NOT NULL,
      eff_priority INTEGER NOT NULL,
      labels TEXT NOT NULL DEFAULT '[]',
      parent_id INTEGER,
      fence INTEGER NOT NULL DEFAULT 0,
      reclaim_count INTEGER NOT NULL DEFAULT 0,
      checkpoint_id INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL
    )`,
    `CREATE INDEX issues_dispatch ON issues(eff_priority, priority, created_at, number) WHERE status IN ('todo', 'doing')`,
    `CREATE INDEX issues_review ON issues(eff_priority, priority, created_at, number) WHERE status = 'review'`,
    `CREATE INDEX issues_created ON issues(created_at, number)`,
    `CREATE INDEX issues_parent ON issues(parent_id)`,
    `CREATE TABLE issue_labels (label TEXT NOT NULL, issue_id INTEGER NOT NULL, PRIMARY KEY (label, issue_id))`,
    `CREATE INDEX issue_labels_issue ON issue_labels(issue_id)`,
    `CREATE TABLE relations (type TEXT NOT NULL, from_id INTEGER NOT NULL, to_id INTEGER NOT NULL, PRIMARY KEY (type, from_id, to_id))`,
    `CREATE INDEX relations_to ON relations(type, to_id, from_id)`,
    `CREATE TABLE leases (
      issue_id INTEGER PRIMARY KEY,
      token_hash TEXT NOT NULL,
      agent TEXT NOT NULL,
      session TEXT NOT NULL,
      role TEXT NOT NULL,
      branch TEXT NOT NULL,
      worktree TEXT,
      renewer TEXT,
      fence INTEGER NOT NULL,
      resumed INTEGER NOT NULL,
      claimed_at INTEGER NOT NULL,
      last_renewed_at INTEGER NOT NULL,
      expires_at INTEGER NOT NULL
    )`,
    `CREATE INDEX leases_expiry ON leases(expires_at)`,
    `CREATE INDEX leases_session ON leases(session)`,
    `CREATE TABLE tokens (
      hash TEXT PRIMARY KEY,
      issue_id INTEGER NOT NULL,
      fence INTEGER NOT NULL,
      agent TEXT NOT NULL,
      session TEXT NOT NULL,
      state TEXT NOT NULL,
      ended_at INTEGER
    )`,
    `CREATE TABLE checkpoints (
      id INTEGER PRIMARY KEY,
      issue_id INTEGER NOT NULL,
      note TEXT NOT NULL,
      state TEXT,
      agent TEXT NOT NULL,
      git TEXT,
      at INTEGER NOT NULL
    )`,
    `CREATE INDEX checkpoints_issue ON checkpoints(issue_id, id)`,
    `CREATE TABLE comments (id INTEGER PRIMARY KEY, issue_id INTEGER NOT NULL, text TEXT NOT NULL, agent TEXT NOT NULL, at INTEGER NOT NULL)`,
    `CREATE INDEX comments_issue ON comments(issue_id, id)`,
    `CREATE TABLE events (
      id INTEGER PRIMARY KEY,
      issue_id INTEGER,
      key TEXT,
      type TEXT NOT NULL,
      agent TEXT NOT NULL,
      detail TEXT NOT NULL,
      at INTEGER NOT NULL
    )`,
    `CREATE INDEX events_issue ON events(issue_id, id)`,
    `CREATE TABLE sessions (
      id TEXT PRIMARY KEY,
      agent TEXT NOT NULL,
      pid INTEGER NOT NULL,
      host TEXT NOT NULL,
      renewer TEXT,
      worktree TEXT,
      started_at INTEGER NOT NULL,
      ended_at INTEGER
    )`,
    `CREATE TABLE requests (
      agent TEXT NOT NULL,
      request_id TEXT NOT NULL,
      session TEXT NOT NULL,
      answer TEXT NOT NULL,
      at INTEGER NOT NULL,
      PRIMARY KEY (agent, request_id)
    )`,
    `INSERT INTO meta (name, value) VALUES ('next_number', '1')`,
  ],
  [
    // The writes servers forward to the one that writes for them (shared/forwarding), by
    // request id: a caller whose writer died mid-call finds here whether its write
    // committed, and a late copy of it finds that it already ran. Kept until the caller
    // confirms the answer, or ten minutes.
    `CREATE TABLE forwarded (id TEXT PRIMARY KEY, at INTEGER NOT NULL)`,
    `CREATE INDEX forwarded_at ON forwarded(at)`,
  ],
  LIVENESS_MIGRATION('INTEGER'),
];

/** `PRAGMA application_id` of every Baton file: tells a Baton database from any other SQLite file. */
export const BATON_APPLICATION_ID = 0x4261746f; // "Bato"
