import { StoreUnavailableError } from '../../errors.js';
import { compact } from './compaction.js';
import { migrationStatements } from './database.js';
import type { FileSystem } from './file-system.js';
import { failureReason, statOrUndefined } from './file-system.js';
import type { FileLock, LockHold } from './file-lock.js';
import type { LogFile } from './log-file.js';
import type { LoggedStatement } from './log-format.js';
import { encodeRecord } from './log-format.js';
import type { Replica } from './replica.js';
import { LATEST_SCHEMA_VERSION } from './snapshot-header.js';

/** One write holding the cross-process lock: what its steps share. */
export interface LockedWriter {
  fs: FileSystem;
  lock: FileLock;
  hold: LockHold;
  replica: Replica;
  /** The logs records were appended to, for the flush once the lock is released (group-flush.ts). */
  appended: LogFile[];
}

/**
 * Throws unless the lock is still this writer's. A holder judged gone (`isOwnerGone` in
 * lock-files.ts) must not touch the files again: whoever took the lock may have written since.
 */
export function assertHeld({ lock, hold, replica }: LockedWriter): void {
  if (!lock.isHeld(hold)) {
    throw new StoreUnavailableError(replica.paths.snapshot, 'the lock was taken over while writing (this process was judged stale)');
  }
}

/** Under the lock: catches up and leaves a log to append to that ends with a complete record. */
export function prepareLog(writer: LockedWriter): void {
  const { fs, replica } = writer;
  const location = replica.paths.snapshot;
  replica.catchUp();
  if (!replica.log) {
    // The database is gone (deleted, or its folder moved away): bringing it back from this
    // copy would make a second database that the original, should it return, contradicts.
    if (!statOrUndefined(fs, replica.paths.snapshot)) throw new StoreUnavailableError(location, 'the database file has disappeared');
    // The log is missing (creation died before writing it, or someone deleted it):
    // fold this copy into a snapshot first so that no other process meets a gap.
    if (!compact(fs, replica, () => assertHeld(writer)) || !replica.log) throw new StoreUnavailableError(location, 'cannot create the operation log');
  }
  if (!replica.log.writable) {
    // Opened while the folder was read-only: open it again, since that may have changed.
    replica.log.close();
    replica.log = undefined;
    replica.catchUp();
  }
  const log = replica.log;
  if (!log?.writable) throw new StoreUnavailableError(location, 'the operation log is read-only');
  // Cutting is the one change made before appending: a holder that lost the lock while it
  // stalled would cut the record its successor is writing.
  if (log.tornBytes > 0) assertHeld(writer);
  let torn: number;
  try {
    torn = log.truncateTornTail();
  } catch (error) {
    throw new StoreUnavailableError(location, `cannot cut an unfinished record off the log (${failureReason(error)})`);
  }
  if (torn > 0) console.error(`baton: removed ${torn} bytes of an unfinished record from ${replica.paths.log}`);
}

/** Brings this copy to the latest schema as a record of its own, which every process replays. */
export function migrate(writer: LockedWriter): void {
  const { replica } = writer;
  const recorded: LoggedStatement[] = migrationStatements(replica.userVersion).map((sql) => [sql, []] as const);
  replica.exec('BEGIN');
  try {
    for (const [sql] of recorded) replica.statements.run(sql, []);
  } catch (error) {
    replica.rollback();
    throw new StoreUnavailableError(replica.paths.snapshot, `cannot migrate from schema ${replica.userVersion}: ${(error as Error).message}`);
  }
  appendAndCommit(writer, recorded);
  replica.userVersion = LATEST_SCHEMA_VERSION;
}

/**
 * Appends the open transaction's record to the log, then commits it in memory. When the
 * append fails, the transaction is rolled back and the log cut back: nothing changed.
 */
export function appendAndCommit(writer: LockedWriter, recorded: LoggedStatement[]): void {
  const { replica, appended } = writer;
  const location = replica.paths.snapshot;
  const log = replica.log;
  try {
    assertHeld(writer);
    if (!log) throw new StoreUnavailableError(location, 'the operation log was closed while writing');
  } catch (error) {
    replica.rollback();
    throw error;
  }
  const seq = replica.appliedSeq + 1;
  const record = encodeRecord(seq, recorded);
  try {
    log.append(record, seq, record.readUInt32LE(4));
    appended.push(log);
  } catch (error) {
    replica.rollback();
    throw new StoreUnavailableError(location, `cannot append to the operation log (${failureReason(error)})`);
  }
  try {
    replica.exec('COMMIT');
  } catch (error) {
    // The record is in the log but this copy could not take it: rebuild the copy from the
    // files, where the record is, before anything else reads it.
    replica.rollback();
    replica.discard();
    throw new StoreUnavailableError(location, `committed, but this copy failed to follow (${(error as Error).message})`);
  }
  replica.appliedSeq = seq;
  replica.appliedCrc = record.readUInt32LE(4);
}
