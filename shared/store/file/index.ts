/**
 * The file store: a SQLite snapshot plus an append-only operation log, shared by every
 * Baton process of a repository through a fair cross-process lock.
 *
 * Files, all named after the database path `P`:
 * - `P`: the snapshot, a plain SQLite file (application_id "Bato", user_version = schema);
 * - `P-log`: the operation log, records of committed transactions since the snapshot;
 * - `P.lock/`: the lock (owner file, queue tickets, break lock);
 * - `P.tmp-<pid>-<random>`: temporary files of compaction, removed if a writer dies;
 * - `P.sock`, `P.answers/`: the socket of the server writing for the others and the
 *   sealed answers of the writes it ran (shared/forwarding).
 *
 * Module map: open-file-store (opening, creation, validation), file-store (the Store),
 * replica (this process's copy and catching up), log-file / log-format (the log),
 * file-lock / lock-files (the lock), compaction, snapshot-file / snapshot-header,
 * database (sql.js setup, migrations), file-in-place (writing a snapshot without a
 * copy), statements (prepared statement cache), file-tx.
 */
export { openFileStore } from './open-file-store.js';
/** The store `openFileStore` opens. */
export { FileStore } from './file-store.js';
/** Options of `openFileStore`. */
export type { FileStoreOptions } from './open-file-store.js';
/** The file operations a test may replace. */
export type { FileSystem } from './file-system.js';
/** The file store of a process that may never open it (see shared/forwarding). */
export { LazyFileStore } from './lazy-file-store.js';
