import { randomBytes } from 'node:crypto';
import { BATON_APPLICATION_ID, SQLITE_MIGRATIONS } from '../sqlite-schema.js';
import { fileInPlace } from './file-in-place.js';
import { type DatabaseImage, openImage, type SqlJs, type SqlJsDatabase } from './sql-js.js';
import { LATEST_SCHEMA_VERSION } from './snapshot-header.js';

/**
 * The store's own row in the snapshot: the sequence number of the last log record
 * folded into it. Kept out of the rules' tables (`meta`) because each process updates
 * it privately just before exporting, and no rule may ever see two processes differ.
 */
const STATE_TABLE = 'file_store_state';
/** The id of a Baton file that has no store state yet. */
const UNNAMED_DATABASE = '0'.repeat(32);
const CREATE_STATE_TABLE = `CREATE TABLE IF NOT EXISTS ${STATE_TABLE} (id INTEGER PRIMARY KEY CHECK (id = 1), applied_seq INTEGER NOT NULL, database_id TEXT NOT NULL)`;

/** A database copy in memory and the facts the store tracks about it. */
export interface LoadedDatabase {
  db: SqlJsDatabase;
  appliedSeq: number;
  userVersion: number;
  /** Random id minted when the database was created; its logs carry it too. */
  databaseId: string;
  /**
   * The array the file was opened in, held weakly: sql.js lets go of it when the file
   * outgrows it, and then it must not be kept alive (see `exportSnapshot`).
   */
  openedIn?: WeakRef<Uint8Array>;
}

/**
 * Settings of a connection, set after every open. sql.js's `export()` has reset them in
 * some releases, so the store sets them again after each export as well. The copy lives
 * in memory and durability comes from the operation log, so SQLite's own journal and
 * syncs (into sql.js's in-memory file system) are pure cost: the journal is kept in
 * memory, which still lets a transaction roll back. No other connection ever opens the
 * in-memory file, so the connection keeps its lock: otherwise SQLite releases it after
 * every transaction and, taking it again, checks the file and throws its page cache away,
 * which made the first statement of every write several times slower than the next.
 */
export function configureConnection(db: SqlJsDatabase): void {
  db.exec('PRAGMA foreign_keys = ON; PRAGMA journal_mode = MEMORY; PRAGMA synchronous = OFF; PRAGMA temp_store = MEMORY; PRAGMA locking_mode = EXCLUSIVE');
}

/**
 * Opens a snapshot's image (header already checked) and reads the store's facts from it.
 * Throws when sql.js cannot read the file; nothing on disk is involved.
 */
export function openSnapshotImage(sqlJs: SqlJs, image: DatabaseImage): LoadedDatabase {
  const db = openImage(sqlJs, image);
  try {
    configureConnection(db);
    // Reading the schema makes SQLite parse the file: a damaged one fails here, not later.
    db.exec('SELECT count(*) FROM sqlite_master');
    const userVersion = pragmaNumber(db, 'user_version');
    if (pragmaNumber(db, 'application_id') !== BATON_APPLICATION_ID) throw new Error('application_id mismatch');
    const hasState = db.exec(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '${STATE_TABLE}'`).length > 0;
    const state = hasState ? db.exec(`SELECT applied_seq, database_id FROM ${STATE_TABLE} WHERE id = 1`)[0]?.values[0] : undefined;
    // A file made before its first write has no state yet: every process reads it alike.
    const openedIn = new WeakRef(image.array);
    if (!state) return { db, appliedSeq: 0, userVersion, databaseId: UNNAMED_DATABASE, openedIn };
    return { db, appliedSeq: Number(state[0]), userVersion, databaseId: String(state[1]), openedIn };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** A new database at the latest schema, marked as Baton's, at sequence 0. */
export function createDatabase(sqlJs: SqlJs): LoadedDatabase {
  const db = new sqlJs.Database();
  try {
    configureConnection(db);
    db.exec('BEGIN');
    for (const sql of migrationStatements(0)) db.exec(sql);
    db.exec(`PRAGMA application_id = ${BATON_APPLICATION_ID}`);
    db.exec(CREATE_STATE_TABLE);
    const databaseId = randomBytes(16).toString('hex');
    db.run(`INSERT INTO ${STATE_TABLE} (id, applied_seq, database_id) VALUES (1, 0, ?)`, [databaseId]);
    db.exec('COMMIT');
    return { db, appliedSeq: 0, userVersion: LATEST_SCHEMA_VERSION, databaseId };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * The statements that bring a database from `fromVersion` to the latest schema, each
 * migration followed by its `user_version`. Run as a logged write, so every process
 * replays the same DDL.
 */
export function migrationStatements(fromVersion: number): string[] {
  const statements: string[] = [];
  for (let version = fromVersion + 1; version <= SQLITE_MIGRATIONS.length; version++) {
    statements.push(...SQLITE_MIGRATIONS[version - 1], `PRAGMA user_version = ${version}`);
  }
  return statements;
}

/** `PRAGMA user_version` of a loaded database. */
export function userVersionOf(db: SqlJsDatabase): number {
  return pragmaNumber(db, 'user_version');
}

/**
 * The snapshot bytes of `db` with `appliedSeq` recorded in them. Must run outside any
 * transaction (sql.js cannot export inside one). When the array the file was opened in
 * still is the file, the bytes are a view of it, valid until the next statement: write
 * them out at once. Otherwise this allocates one full copy of the database; the caller
 * writes it out and drops it.
 */
export function exportSnapshot(db: SqlJsDatabase, appliedSeq: number, databaseId: string, openedIn?: WeakRef<Uint8Array>): Uint8Array {
  db.exec(CREATE_STATE_TABLE);
  db.run(`INSERT OR REPLACE INTO ${STATE_TABLE} (id, applied_seq, database_id) VALUES (1, ?, ?)`, [appliedSeq, databaseId]);
  const array = openedIn?.deref();
  if (array) {
    const stateRoot = Number(db.exec(`SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = '${STATE_TABLE}'`)[0]?.values[0]?.[0] ?? 0);
    const layout = { pageSize: pragmaNumber(db, 'page_size'), pageCount: pragmaNumber(db, 'page_count'), stateRoot };
    const inPlace = fileInPlace(array, layout, { appliedSeq, databaseId });
    if (inPlace) return inPlace;
  }
  const bytes = db.export();
  configureConnection(db);
  return bytes;
}

function pragmaNumber(db: SqlJsDatabase, name: string): number {
  return Number(db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0] ?? 0);
}
