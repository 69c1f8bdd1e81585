import { StoreUnavailableError } from '../../errors.js';
import type { LoadedDatabase } from './database.js';
import { openSnapshotImage, userVersionOf } from './database.js';
import type { FileSystem } from './file-system.js';
import { errnoCode, failureReason, statOrUndefined } from './file-system.js';
import { LogFile, LogProblem } from './log-file.js';
import type { LogRead } from './log-file.js';
import type { LogRecord } from './log-format.js';
import type { StorePaths } from '../paths.js';
import { readSnapshot } from './snapshot-file.js';
import { LATEST_SCHEMA_VERSION, snapshotProblem } from './snapshot-header.js';
import type { DatabaseImage, SqlJs } from './sql-js.js';
import { Statements } from './statements.js';

/** How often catching up may start over from the snapshot before the files are judged inconsistent. */
const MAX_RELOADS = 3;

/**
 * Bytes of log read and replayed at a time. A copy far behind (a process opening a log
 * near the compaction threshold, or one that has not read for a while) would otherwise
 * hold the whole stretch, decoded, at once, and a server opening a database with a log
 * near the threshold would reach its highest memory doing so.
 */
const CATCH_UP_BYTES = 1 << 20;

/** A replayed statement failed: this copy and the writer's disagree. */
class ReplayError extends Error {}

/**
 * This process's copy of the database: the snapshot it loaded plus every log record
 * applied since, and the log generation it reads. Catching up is lock-free: a record is
 * only used once complete and checksummed, and anything that does not line up (a gap
 * left by compaction, a log cut back under a record already applied) starts over from
 * the snapshot, which is always complete because it is only ever replaced by rename.
 */
export class Replica {
  statements: Statements;
  appliedSeq: number;
  /**
   * The checksum of the record at `appliedSeq`, once this copy has applied or written one:
   * what tells this copy's history from another that reached the same seq.
   */
  appliedCrc: number | undefined;
  userVersion: number;
  databaseId: string;
  log: LogFile | undefined;
  /** The array this copy's file was opened in (see `exportSnapshot`). */
  openedIn: WeakRef<Uint8Array> | undefined;
  private discarded = false;

  private constructor(
    private readonly sqlJs: SqlJs,
    private readonly fs: FileSystem,
    readonly paths: StorePaths,
    loaded: LoadedDatabase,
  ) {
    this.statements = new Statements(loaded.db);
    this.appliedSeq = loaded.appliedSeq;
    this.userVersion = loaded.userVersion;
    this.databaseId = loaded.databaseId;
    this.openedIn = loaded.openedIn;
  }

  /**
   * Loads the snapshot and catches up on the log. Undefined when there is no database
   * yet (no file, or an empty one). Throws `StoreUnavailableError` for files that must
   * not be used, having changed none of them.
   */
  static load(sqlJs: SqlJs, fs: FileSystem, paths: StorePaths): Replica | undefined {
    const loaded = loadSnapshot(sqlJs, fs, paths);
    if (!loaded) return undefined;
    const replica = new Replica(sqlJs, fs, paths, loaded);
    try {
      replica.catchUp();
    } catch (error) {
      replica.close();
      throw error;
    }
    return replica;
  }

  /** A replica of a database created by this process (already written to disk). */
  static adopt(sqlJs: SqlJs, fs: FileSystem, paths: StorePaths, loaded: LoadedDatabase, log: LogFile): Replica {
    const replica = new Replica(sqlJs, fs, paths, loaded);
    replica.log = log;
    return replica;
  }

  /**
   * Applies every complete record other processes committed since the last call. When
   * nothing changed this costs one `stat` of the log.
   */
  catchUp(): void {
    if (this.discarded) {
      this.reload();
      this.discarded = false;
    }
    for (let reloads = 0; ; reloads++) {
      let outcome: 'ok' | 'reload';
      try {
        outcome = this.tryCatchUp();
      } catch (error) {
        if (!(error instanceof ReplayError) || reloads >= 1) throw this.unavailable(error);
        outcome = 'reload';
      }
      if (outcome === 'ok') return;
      if (reloads >= MAX_RELOADS) {
        throw new StoreUnavailableError(this.paths.snapshot, `the operation log does not continue the snapshot (at seq ${this.appliedSeq})`);
      }
      this.reload();
    }
  }

  /** Marks this copy as no longer matching the files: the next catch-up starts from the snapshot. */
  discard(): void {
    this.discarded = true;
  }

  /** Runs SQL outside the statement cache (transaction control). */
  exec(sql: string): void {
    this.statements.exec(sql);
  }

  /** Rolls back an open transaction; quiet when SQLite already ended it after an error. */
  rollback(): void {
    try {
      this.statements.exec('ROLLBACK');
    } catch {
      // No transaction was active: SQLite rolled it back itself (e.g. out of memory).
    }
  }

  /** Frees the database copy and closes the log. */
  close(): void {
    this.statements.clear();
    this.statements.db.close();
    this.log?.close();
    this.log = undefined;
  }

  private tryCatchUp(): 'ok' | 'reload' {
    const stat = statOrUndefined(this.fs, this.paths.log);
    if (this.log && stat && stat.ino === this.log.ino) return this.readFrom(this.log, stat.size);
    if (this.log) {
      // Compaction replaced the log: finish the old generation through the open descriptor,
      // so a process that is caught up continues in the new log without reloading.
      if (this.readFrom(this.log, this.log.size()) === 'reload') return 'reload';
      this.log.close();
      this.log = undefined;
    }
    if (!stat) return 'ok';
    const log = this.openLog();
    if (!log) return 'ok';
    if (log.header.baseSeq > this.appliedSeq) {
      log.close();
      return 'reload';
    }
    this.log = log;
    return this.readFrom(log, log.size());
  }

  private openLog(): LogFile | undefined {
    let log: LogFile | undefined;
    try {
      log = LogFile.open(this.fs, this.paths.log);
    } catch (error) {
      if (error instanceof LogProblem) throw new StoreUnavailableError(this.paths.log, error.message);
      throw error;
    }
    if (log && log.header.databaseId !== this.databaseId) {
      // The snapshot or the log was replaced by another database's: replaying one onto the
      // other would mix two repositories' issues.
      log.close();
      throw new StoreUnavailableError(this.paths.snapshot, `${this.paths.log} belongs to another Baton database than ${this.paths.snapshot}`);
    }
    return log;
  }

  /** Reads and applies the log up to `size`, a bounded stretch at a time. */
  private readFrom(log: LogFile, size: number): 'ok' | 'reload' {
    for (;;) {
      let read: LogRead;
      try {
        read = log.readNew(size, this.appliedSeq, CATCH_UP_BYTES);
      } catch (error) {
        if (error instanceof LogProblem) throw new StoreUnavailableError(this.paths.log, error.message);
        throw error;
      }
      if (read.kind === 'rewound' || !this.continuedBy(log, read.records)) return 'reload';
      const fresh = read.records.filter((record) => record.seq > this.appliedSeq);
      let upTo = 0;
      while (upTo < fresh.length && fresh[upTo].seq === this.appliedSeq + upTo + 1) upTo++;
      if (upTo > 0) this.apply(fresh.slice(0, upTo));
      if (upTo < fresh.length) return 'reload';
      if (!read.more) return 'ok';
    }
  }

  /**
   * Whether the log holds this copy's history up to its seq: the log reaches that seq and,
   * where both are known, its record there is the one this copy applied. Otherwise the
   * files went on from another history (a deleted log begun again from an older snapshot,
   * say), and skipping the records at or below this copy's seq would leave it diverged
   * from everyone else, each process writing on its own version: start over from the files.
   */
  private continuedBy(log: LogFile, records: readonly LogRecord[]): boolean {
    if (log.lastSeq < this.appliedSeq) return false;
    const own = records.find((record) => record.seq === this.appliedSeq);
    return own === undefined || this.appliedCrc === undefined || own.crc === this.appliedCrc;
  }

  /** Applies consecutive records in one transaction: all of them or, on failure, none. */
  private apply(records: LogRecord[]): void {
    let schemaChanged = false;
    this.statements.exec('BEGIN');
    try {
      for (const record of records) {
        for (const [sql, params] of record.statements) {
          this.statements.run(sql, params);
          if (sql.includes('user_version')) schemaChanged = true;
        }
      }
      this.statements.exec('COMMIT');
    } catch (error) {
      this.rollback();
      throw new ReplayError(`cannot replay operation ${records[0].seq}..${records[records.length - 1].seq}: ${(error as Error).message}`);
    }
    this.appliedSeq = records[records.length - 1].seq;
    this.appliedCrc = records[records.length - 1].crc;
    if (schemaChanged) {
      this.userVersion = userVersionOf(this.statements.db);
      if (this.userVersion > LATEST_SCHEMA_VERSION) {
        throw new StoreUnavailableError(
          this.paths.snapshot,
          `migrated by a newer Baton (schema ${this.userVersion}; this one knows ${LATEST_SCHEMA_VERSION})`,
        );
      }
    }
  }

  /** Starts over from the snapshot on disk, keeping the current copy until the new one is good. */
  private reload(): void {
    const loaded = loadSnapshot(this.sqlJs, this.fs, this.paths);
    if (!loaded) throw new StoreUnavailableError(this.paths.snapshot, 'the snapshot file has disappeared');
    if (loaded.databaseId !== this.databaseId) {
      loaded.db.close();
      throw new StoreUnavailableError(this.paths.snapshot, 'the file was replaced by another Baton database');
    }
    this.close();
    this.statements = new Statements(loaded.db);
    this.appliedSeq = loaded.appliedSeq;
    this.appliedCrc = undefined;
    this.userVersion = loaded.userVersion;
    this.openedIn = loaded.openedIn;
  }

  private unavailable(error: unknown): Error {
    if (error instanceof StoreUnavailableError) return error;
    if (error instanceof ReplayError) return new StoreUnavailableError(this.paths.snapshot, error.message);
    const code = errnoCode(error);
    if (code) return new StoreUnavailableError(this.paths.snapshot, `${code} while reading the database files`);
    return error as Error;
  }
}

/** Reads, checks and opens the snapshot; undefined when there is none yet. */
function loadSnapshot(sqlJs: SqlJs, fs: FileSystem, paths: StorePaths): LoadedDatabase | undefined {
  let image: DatabaseImage | undefined;
  try {
    image = readSnapshot(fs, paths);
  } catch (error) {
    throw new StoreUnavailableError(paths.snapshot, `cannot read the file (${failureReason(error)})`);
  }
  if (!image) return undefined;
  const problem = snapshotProblem(image.bytes);
  if (problem) throw new StoreUnavailableError(paths.snapshot, problem);
  try {
    return openSnapshotImage(sqlJs, image);
  } catch (error) {
    throw new StoreUnavailableError(paths.snapshot, `SQLite cannot read it (${(error as Error).message})`);
  }
}
