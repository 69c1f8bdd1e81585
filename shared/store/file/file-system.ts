import * as nodeFs from 'node:fs';

/**
 * The file operations the store uses, all synchronous but one: the store's critical
 * section is synchronous CPU work plus a few system calls, and async I/O would only add
 * event-loop turns while the cross-process lock is held. The exception is `fdatasync`,
 * for a flush that several writes share after the lock is released (group-flush.ts).
 * Tests replace single members to fail a rename, a write or an fsync at a chosen moment.
 */
export interface FileSystem {
  openSync: typeof nodeFs.openSync;
  closeSync: typeof nodeFs.closeSync;
  readSync: typeof nodeFs.readSync;
  writeSync: typeof nodeFs.writeSync;
  fstatSync: typeof nodeFs.fstatSync;
  statSync: typeof nodeFs.statSync;
  fsyncSync: typeof nodeFs.fsyncSync;
  fdatasyncSync: typeof nodeFs.fdatasyncSync;
  fdatasync(fd: number, callback: (error: NodeJS.ErrnoException | null) => void): void;
  ftruncateSync: typeof nodeFs.ftruncateSync;
  renameSync: typeof nodeFs.renameSync;
  unlinkSync: typeof nodeFs.unlinkSync;
  mkdirSync: typeof nodeFs.mkdirSync;
  readdirSync: typeof nodeFs.readdirSync;
  utimesSync: typeof nodeFs.utimesSync;
  watch: typeof nodeFs.watch;
}

/** The real file system. */
export const nodeFileSystem: FileSystem = {
  openSync: nodeFs.openSync,
  closeSync: nodeFs.closeSync,
  readSync: nodeFs.readSync,
  writeSync: nodeFs.writeSync,
  fstatSync: nodeFs.fstatSync,
  statSync: nodeFs.statSync,
  fsyncSync: nodeFs.fsyncSync,
  fdatasyncSync: nodeFs.fdatasyncSync,
  fdatasync: nodeFs.fdatasync,
  ftruncateSync: nodeFs.ftruncateSync,
  renameSync: nodeFs.renameSync,
  unlinkSync: nodeFs.unlinkSync,
  mkdirSync: nodeFs.mkdirSync,
  readdirSync: nodeFs.readdirSync,
  utimesSync: nodeFs.utimesSync,
  watch: nodeFs.watch,
};

/** The real file system with some members replaced (tests inject failures this way). */
export function withFileSystem(overrides: Partial<FileSystem> | undefined): FileSystem {
  return overrides ? { ...nodeFileSystem, ...overrides } : nodeFileSystem;
}

/** The error code of a failed system call, or undefined for anything else. */
export function errnoCode(error: unknown): string | undefined {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Why a file operation failed, for a refusal's reason: the error code, else the message. */
export function failureReason(error: unknown): string {
  return errnoCode(error) ?? (error as Error).message;
}

/** `stat` that answers undefined for a missing file instead of throwing. */
export function statOrUndefined(fs: FileSystem, path: string): nodeFs.Stats | undefined {
  try {
    return fs.statSync(path);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** `unlink` that ignores a file already gone. */
export function unlinkIfPresent(fs: FileSystem, path: string): void {
  try {
    fs.unlinkSync(path);
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error;
  }
}

/**
 * Makes a rename or a new file in `dir` durable. A rename is only on disk once its
 * folder is; platforms that cannot fsync a folder (Windows) refuse, and there is
 * nothing better to do than carry on.
 */
export function fsyncDir(fs: FileSystem, dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch (error) {
    const code = errnoCode(error);
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EACCES') throw error;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Reads exactly `length` bytes at `position`, or fewer only at end of file. */
export function readAt(fs: FileSystem, fd: number, length: number, position: number): Buffer {
  const buffer = Buffer.allocUnsafe(length);
  const done = readInto(fs, fd, buffer, position);
  return done === length ? buffer : buffer.subarray(0, done);
}

/** Fills `target` from `position` on; answers how many bytes it read (fewer only at end of file). */
export function readInto(fs: FileSystem, fd: number, target: Uint8Array, position: number): number {
  let done = 0;
  while (done < target.length) {
    const n = fs.readSync(fd, target, done, target.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

/** Writes all of `data` at `position` (short writes happen on full disks and are retried until an error). */
export function writeAt(fs: FileSystem, fd: number, data: Uint8Array, position: number | null): void {
  let done = 0;
  while (done < data.length) {
    const n = fs.writeSync(fd, data, done, data.length - done, position === null ? null : position + done);
    if (n <= 0) throw Object.assign(new Error('short write'), { code: 'EIO' });
    done += n;
  }
}
