import * as fs from 'node:fs';
import type { FileSystem } from '../../shared/store/file/index.js';

/** Which faults are on right now; tests flip them between calls. */
export interface Faults {
  /** The folder became read-only: every write, create, rename and removal fails with EROFS. */
  readOnly: boolean;
  /** The disk is full: writing data fails with ENOSPC (creating an empty file still works, as on ext4). */
  full: boolean;
}

function failure(code: string, path?: fs.PathLike | number): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault${path === undefined ? '' : ` on ${String(path)}`}`), { code });
}

function writes(flags: fs.OpenMode | undefined): boolean {
  if (flags === undefined) return false;
  if (typeof flags === 'string') return /[wa+]/.test(flags);
  return (flags & (fs.constants.O_WRONLY | fs.constants.O_RDWR | fs.constants.O_CREAT)) !== 0;
}

/**
 * File operations for `openFileStore({ fs })` that fail the way a read-only or a full
 * file system does while `faults` say so, and behave as node:fs otherwise. Root ignores
 * permission bits, so this is how the tests make a folder read-only for it.
 */
export function faultyFs(faults: Faults): Partial<FileSystem> {
  return {
    openSync: ((path: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (faults.readOnly && writes(flags)) throw failure('EROFS', path);
      return fs.openSync(path, flags as fs.OpenMode, mode);
    }) as typeof fs.openSync,
    writeSync: ((fd: number, ...rest: unknown[]) => {
      if (faults.readOnly) throw failure('EROFS', fd);
      if (faults.full) throw failure('ENOSPC', fd);
      return (fs.writeSync as (fd: number, ...args: unknown[]) => number)(fd, ...rest);
    }) as typeof fs.writeSync,
    ftruncateSync: ((fd: number, len?: number) => {
      if (faults.readOnly) throw failure('EROFS', fd);
      return fs.ftruncateSync(fd, len);
    }) as typeof fs.ftruncateSync,
    renameSync: (from, to) => {
      if (faults.readOnly) throw failure('EROFS', to);
      return fs.renameSync(from, to);
    },
    unlinkSync: (path) => {
      if (faults.readOnly) throw failure('EROFS', path);
      return fs.unlinkSync(path);
    },
    utimesSync: (path, atime, mtime) => {
      if (faults.readOnly) throw failure('EROFS', path);
      return fs.utimesSync(path, atime, mtime);
    },
    mkdirSync: ((path: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
      // As on a real read-only mount: an existing folder is fine, a new one is not.
      if (faults.readOnly && !fs.existsSync(path)) throw failure('EROFS', path);
      return fs.mkdirSync(path, options);
    }) as typeof fs.mkdirSync,
  };
}
