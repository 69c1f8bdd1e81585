import type { Clock } from '../../clock.js';
import { systemClock } from '../../clock.js';
import { StoreUnavailableError } from '../../errors.js';
import { createDatabase, exportSnapshot } from './database.js';
import type { FileSystem } from './file-system.js';
import { failureReason, withFileSystem } from './file-system.js';
import { FileLock, LockTimeoutError } from './file-lock.js';
import { FileStore } from './file-store.js';
import { LogFile, LogProblem } from './log-file.js';
import { LOG_HEADER_SIZE } from './log-format.js';
import type { StorePaths } from '../paths.js';
import { storePaths } from '../paths.js';
import { Replica } from './replica.js';
import { removeLeftoverTemps, writeSnapshot } from './snapshot-file.js';
import { LATEST_SCHEMA_VERSION } from './snapshot-header.js';
import type { SqlJs } from './sql-js.js';
import { loadSqlJs } from './sql-js.js';

/** How to open a file store. */
export interface FileStoreOptions {
  /** The database file; the log, lock and temporary files are named after it. */
  path: string;
  /** Source of each transaction's `now` (default: the system clock). */
  clock?: Clock;
  /** How long a write waits for the cross-process lock before `STORE_UNAVAILABLE` (default 10 s). */
  lockTimeoutMs?: number;
  /**
   * A lock holder or waiter silent this long is presumed gone even when its process id
   * cannot be checked, e.g. from another container (default 30 s).
   */
  lockStaleMs?: number;
  /** Log size in bytes past which a writer folds it into a new snapshot (default 8 MiB). */
  compactAfterBytes?: number;
  /** File operations to use instead of node:fs, member by member (tests inject failures). */
  fs?: Partial<FileSystem>;
}

const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
const DEFAULT_LOCK_STALE_MS = 30_000;
const DEFAULT_COMPACT_AFTER_BYTES = 8 * 1024 * 1024;

/**
 * Opens (creating on first use) the Baton database at `options.path`. An existing file
 * is checked before anything is written: one that is not a Baton database, is
 * truncated or damaged, or comes from a newer Baton is refused with
 * `StoreUnavailableError` naming the path, and left byte for byte as it was.
 */
export async function openFileStore(options: FileStoreOptions): Promise<FileStore> {
  const paths = storePaths(options.path);
  const fs = withFileSystem(options.fs);
  let sqlJs: SqlJs;
  try {
    sqlJs = await loadSqlJs();
  } catch (error) {
    throw new StoreUnavailableError(paths.snapshot, `cannot start SQLite: ${(error as Error).message}`);
  }
  const lock = new FileLock(paths.lockDir, {
    fs,
    timeoutMs: options.lockTimeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS,
    staleMs: options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS,
  });
  const replica = Replica.load(sqlJs, fs, paths) ?? (await createUnderLock(sqlJs, fs, paths, lock));
  const store = new FileStore({
    fs,
    clock: options.clock ?? systemClock,
    lock,
    replica,
    compactAfterBytes: options.compactAfterBytes ?? DEFAULT_COMPACT_AFTER_BYTES,
  });
  if (replica.userVersion < LATEST_SCHEMA_VERSION) {
    try {
      await store.migrate();
    } catch (error) {
      await store.close();
      throw error;
    }
  }
  return store;
}

/**
 * Creates the database on first use, under the lock since several processes may start
 * at once: the folder, a snapshot at the latest schema, then an empty log. A process
 * that finds the database created by another meanwhile simply loads it.
 */
async function createUnderLock(sqlJs: SqlJs, fs: FileSystem, paths: StorePaths, lock: FileLock): Promise<Replica> {
  try {
    fs.mkdirSync(paths.dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StoreUnavailableError(paths.snapshot, `cannot create its folder (${failureReason(error)})`);
  }
  let hold;
  try {
    hold = await lock.acquire();
  } catch (error) {
    if (error instanceof LockTimeoutError) throw new StoreUnavailableError(paths.snapshot, error.message);
    throw new StoreUnavailableError(paths.snapshot, `cannot take the lock (${failureReason(error)})`);
  }
  try {
    const existing = Replica.load(sqlJs, fs, paths);
    if (existing) return existing;
    refuseOrphanLog(fs, paths);
    removeLeftoverTemps(fs, paths);
    const loaded = createDatabase(sqlJs);
    try {
      writeSnapshot(fs, paths, exportSnapshot(loaded.db, 0, loaded.databaseId));
      return Replica.adopt(sqlJs, fs, paths, loaded, LogFile.create(fs, paths, 0, loaded.databaseId));
    } catch (error) {
      loaded.db.close();
      throw new StoreUnavailableError(paths.snapshot, `cannot create the database (${failureReason(error)})`);
    }
  } finally {
    lock.release(hold);
  }
}

/**
 * A log without its snapshot holds operations that cannot be replayed onto a fresh
 * database; it is kept for a person to look at. Only an empty log at seq 0 (left by a
 * creation that died) may be replaced.
 */
function refuseOrphanLog(fs: FileSystem, paths: StorePaths): void {
  let log: LogFile | undefined;
  try {
    log = LogFile.open(fs, paths.log);
  } catch (error) {
    const reason = error instanceof LogProblem ? error.message : `cannot read it (${failureReason(error)})`;
    throw new StoreUnavailableError(paths.log, reason);
  }
  if (!log) return;
  const empty = log.header.baseSeq === 0 && log.size() === LOG_HEADER_SIZE;
  log.close();
  if (!empty) throw new StoreUnavailableError(paths.snapshot, `the database file is missing but its operation log ${paths.log} is not empty`);
}
