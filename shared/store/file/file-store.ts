import type { Clock } from '../../clock.js';
import { StoreUnavailableError } from '../../errors.js';
import type { Result } from '../../result.js';
import type { Store, StoreInfo, Tx } from '../store.js';
import { compact } from './compaction.js';
import { migrationStatements } from './database.js';
import type { FileSystem } from './file-system.js';
import { errnoCode, statOrUndefined } from './file-system.js';
import type { FileLock, LockHold } from './file-lock.js';
import { LockTimeoutError } from './file-lock.js';
import { FileTx } from './file-tx.js';
import type { LoggedStatement } from './log-format.js';
import { encodeRecord } from './log-format.js';
import { Mutex } from './mutex.js';
import type { Replica } from './replica.js';
import { LATEST_SCHEMA_VERSION } from './snapshot-header.js';

/** What a `FileStore` is built from (see `openFileStore`). */
export interface FileStoreParts {
  fs: FileSystem;
  clock: Clock;
  lock: FileLock;
  replica: Replica;
  /** Log size in bytes past which a writer folds it into a new snapshot. */
  compactAfterBytes: number;
}

/**
 * The file store: one sql.js copy per process, kept current by replaying the operation
 * log, and changed only under the cross-process lock by appending to that log.
 * Everything touching the copy runs under one in-process mutex, since a transaction
 * awaits between statements and the sweep timer shares the process with tool calls.
 */
export class FileStore implements Store {
  readonly backend = 'file' as const;
  readonly location: string;
  private readonly mutex = new Mutex();
  private closed = false;

  constructor(private readonly parts: FileStoreParts) {
    this.location = parts.replica.paths.snapshot;
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const replica = this.open();
      replica.catchUp();
      const tx = new FileTx(replica.statements, this.parts.clock.now());
      try {
        return await fn(tx);
      } finally {
        tx.end();
      }
    });
  }

  write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
    return this.mutex.run(async () => {
      const replica = this.open();
      // Most of the catching up happens here and while queueing, outside the lock.
      replica.catchUp();
      const hold = await this.acquire(() => replica.catchUp());
      try {
        return await this.writeLocked(replica, hold, fn);
      } finally {
        this.release(hold);
      }
    });
  }

  version(): Promise<string> {
    return this.mutex.run(async () => {
      const replica = this.open();
      replica.catchUp();
      // The log id changes with every compaction, the seq with every commit; the checksum
      // tells apart two records that took the same seq after one was cut back.
      const log = replica.log;
      return log ? `${log.header.logId}:${replica.appliedSeq}:${log.lastCrc.toString(36)}` : `nolog:${replica.appliedSeq}`;
    });
  }

  info(): Promise<StoreInfo> {
    return this.mutex.run(async () => {
      const replica = this.open();
      replica.catchUp();
      const { fs } = this.parts;
      return {
        backend: 'file',
        location: this.location,
        schemaVersion: replica.userVersion,
        sizes: {
          snapshot: statOrUndefined(fs, replica.paths.snapshot)?.size ?? 0,
          log: statOrUndefined(fs, replica.paths.log)?.size ?? 0,
        },
        appliedSeq: replica.appliedSeq,
        logBaseSeq: replica.log?.header.baseSeq ?? null,
        lock: replica.paths.lockDir,
      };
    });
  }

  close(): Promise<void> {
    return this.mutex.run(async () => {
      if (this.closed) return;
      this.closed = true;
      this.parts.replica.close();
    });
  }

  /**
   * Brings an older database to the latest schema. Any write does so first, under the
   * lock, as a logged record of its own that every process replays; this is a write
   * that does nothing else.
   */
  async migrate(): Promise<void> {
    await this.write(async () => ({ ok: true, value: undefined }));
  }

  private async writeLocked<T>(replica: Replica, hold: LockHold, fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
    this.prepareLog(replica);
    if (replica.userVersion < LATEST_SCHEMA_VERSION) this.migrateLocked(replica, hold);
    const recorded: LoggedStatement[] = [];
    // Taken only now, holding the lock: no later writer can commit an earlier time.
    const tx = new FileTx(replica.statements, this.parts.clock.now(), recorded);
    replica.exec('BEGIN');
    let result: Result<T>;
    try {
      result = await fn(tx);
    } catch (error) {
      tx.end();
      replica.rollback();
      throw error;
    }
    tx.end();
    if (!result.ok || recorded.length === 0) {
      replica.rollback();
      return result;
    }
    this.commit(replica, hold, recorded);
    if (replica.log && replica.log.validEnd >= this.parts.compactAfterBytes) {
      this.parts.lock.touch();
      compact(this.parts.fs, replica);
    }
    return result;
  }

  private migrateLocked(replica: Replica, hold: LockHold): void {
    const recorded: LoggedStatement[] = migrationStatements(replica.userVersion).map((sql) => [sql, []] as const);
    replica.exec('BEGIN');
    try {
      for (const [sql] of recorded) replica.statements.run(sql, []);
    } catch (error) {
      replica.rollback();
      throw new StoreUnavailableError(this.location, `cannot migrate from schema ${replica.userVersion}: ${(error as Error).message}`);
    }
    this.commit(replica, hold, recorded);
    replica.userVersion = LATEST_SCHEMA_VERSION;
  }

  /** Appends the record, then commits in memory; on any failure nothing has changed anywhere. */
  private commit(replica: Replica, hold: LockHold, recorded: LoggedStatement[]): void {
    const log = replica.log;
    if (!log || !this.parts.lock.isHeld(hold)) {
      replica.rollback();
      throw new StoreUnavailableError(this.location, 'the lock was taken over while writing (this process was judged stale)');
    }
    const seq = replica.appliedSeq + 1;
    const record = encodeRecord(seq, recorded);
    try {
      log.append(record, seq, record.readUInt32LE(4));
    } catch (error) {
      replica.rollback();
      throw new StoreUnavailableError(this.location, `cannot append to the operation log (${errnoCode(error) ?? (error as Error).message})`);
    }
    try {
      replica.exec('COMMIT');
    } catch (error) {
      // The record is durable but this copy could not take it: rebuild the copy from the
      // files, where the record is, before anything else reads it.
      replica.rollback();
      replica.discard();
      throw new StoreUnavailableError(this.location, `committed, but this copy failed to follow (${(error as Error).message})`);
    }
    replica.appliedSeq = seq;
  }

  /** Under the lock: a log to append to, ending with a complete record. */
  private prepareLog(replica: Replica): void {
    replica.catchUp();
    if (!replica.log) {
      // The log is missing (creation died before writing it, or someone deleted it):
      // fold this copy into a snapshot first so that no other process meets a gap.
      if (!compact(this.parts.fs, replica) || !replica.log) {
        throw new StoreUnavailableError(this.location, 'cannot create the operation log');
      }
    }
    const log = replica.log;
    if (!log.writable) throw new StoreUnavailableError(this.location, 'the operation log is read-only');
    let torn: number;
    try {
      torn = log.truncateTornTail();
    } catch (error) {
      throw new StoreUnavailableError(this.location, `cannot cut an unfinished record off the log (${errnoCode(error) ?? (error as Error).message})`);
    }
    if (torn > 0) console.error(`baton: removed ${torn} bytes of an unfinished record from ${replica.paths.log}`);
  }

  private async acquire(whileWaiting: () => void): Promise<LockHold> {
    try {
      return await this.parts.lock.acquire(whileWaiting);
    } catch (error) {
      if (error instanceof LockTimeoutError) throw new StoreUnavailableError(this.location, error.message);
      // Catching up while queueing may itself find the files unusable; that reason stands.
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(this.location, `cannot take the lock (${errnoCode(error) ?? (error as Error).message})`);
    }
  }

  private release(hold: LockHold): void {
    try {
      this.parts.lock.release(hold);
    } catch (error) {
      // The result stands; others will judge the leftover owner file stale by its age.
      console.error(`baton: could not release the lock of ${this.location}: ${(error as Error).message}`);
    }
  }

  private open(): Replica {
    if (this.closed) throw new Error('this store has been closed');
    return this.parts.replica;
  }
}
