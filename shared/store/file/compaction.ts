import { exportSnapshot } from './database.js';
import type { FileSystem } from './file-system.js';
import { LogFile } from './log-file.js';
import type { Replica } from './replica.js';
import { removeLeftoverTemps, writeSnapshot } from './snapshot-file.js';

/**
 * Folds the log into a new snapshot. Runs under the lock, caught up, outside any
 * transaction; `assertHeld` throws once the lock is no longer this process's, and is
 * asked right before each rename, the only steps others see. The order makes a crash at
 * any point harmless: the new snapshot is renamed into place first (it records the seq
 * it contains, and replay skips records at or below it), and only then is the log
 * replaced by an empty one continuing from that seq. A process that is caught up
 * continues in the new log without reloading.
 *
 * Answers whether it finished; a failure leaves the old snapshot and log in use and is
 * reported to stderr, since the write that triggered it has already committed.
 */
export function compact(fs: FileSystem, replica: Replica, assertHeld: () => void): boolean {
  const { paths } = replica;
  try {
    removeLeftoverTemps(fs, paths);
    // Either a view of the live file, or one full copy of the database: written at once, kept no longer.
    writeSnapshot(fs, paths, exportSnapshot(replica.statements.db, replica.appliedSeq, replica.databaseId, replica.openedIn), assertHeld);
  } catch (error) {
    console.error(`baton: could not write a new snapshot of ${paths.snapshot}: ${(error as Error).message}`);
    return false;
  }
  return replaceLog(fs, replica, assertHeld);
}

/** Starts a new, empty log generation at the replica's seq (the snapshot must already contain it). */
function replaceLog(fs: FileSystem, replica: Replica, assertHeld: () => void): boolean {
  try {
    const log = LogFile.create(fs, replica.paths, replica.appliedSeq, replica.databaseId, assertHeld);
    replica.log?.close();
    replica.log = log;
    return true;
  } catch (error) {
    console.error(`baton: could not start a new operation log for ${replica.paths.snapshot}: ${(error as Error).message}`);
    return false;
  }
}
