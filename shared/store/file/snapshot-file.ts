import { randomBytes } from 'node:crypto';
import type { FileSystem } from './file-system.js';
import { errnoCode, fsyncDir, readInto, unlinkIfPresent, writeAt } from './file-system.js';
import { DatabaseImage } from './sql-js.js';
import type { StorePaths } from '../paths.js';

/**
 * Replaces the snapshot with `bytes` atomically: a uniquely named temporary file in the
 * same folder, fsynced, renamed over, and the folder fsynced so the rename itself
 * survives a power cut. A failure leaves the old snapshot as it was; so does
 * `beforeRename` throwing.
 */
export function writeSnapshot(fs: FileSystem, paths: StorePaths, bytes: Uint8Array, beforeRename?: () => void): void {
  const tmp = `${paths.dir}/${paths.tmpPrefix}${process.pid}-${randomBytes(6).toString('hex')}`;
  try {
    const fd = fs.openSync(tmp, 'wx', 0o600);
    try {
      writeAt(fs, fd, bytes, 0);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    beforeRename?.();
    fs.renameSync(tmp, paths.snapshot);
  } catch (error) {
    unlinkIfPresent(fs, tmp);
    throw error;
  }
  fsyncDir(fs, paths.dir);
}

/**
 * The snapshot's bytes, read straight into the array the database will live in; undefined
 * when there is no snapshot (or an empty file). Snapshots are only ever replaced by a
 * rename, so the file open here keeps the size it had when opened.
 */
export function readSnapshot(fs: FileSystem, paths: StorePaths): DatabaseImage | undefined {
  let fd: number;
  try {
    fd = fs.openSync(paths.snapshot, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fs.fstatSync(fd).size;
    if (size === 0) return undefined;
    const image = new DatabaseImage(size);
    if (readInto(fs, fd, image.bytes, 0) < size) throw new Error('it shrank while being read');
    return image;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Removes temporary files that killed writers left behind (each can be as large as the
 * database). Only the lock holder writes temporary files, so under the lock every one
 * found is a leftover.
 */
export function removeLeftoverTemps(fs: FileSystem, paths: StorePaths): number {
  let removed = 0;
  for (const name of fs.readdirSync(paths.dir) as string[]) {
    if (!name.startsWith(paths.tmpPrefix)) continue;
    try {
      unlinkIfPresent(fs, `${paths.dir}/${name}`);
      removed++;
    } catch {
      // Someone else's permissions; leaving it costs disk space only.
    }
  }
  return removed;
}
