import { FileStore } from './file/file-store.js';
import { type FileSystem, nodeFileSystem, withFileSystem } from './file/file-system.js';
import { LazyFileStore } from './file/lazy-file-store.js';
import { type OwnerInfo, readOwner } from './file/lock-files.js';
import { storePaths } from './paths.js';
import type { Store } from './store.js';

/*
 * What the rest of Baton may know of the file store (shared/store/file/): forwarding,
 * the opener, the CLI and the server reach it through this module only, so the store's
 * internals can change without them (test/shared/boundaries.test.ts holds the line).
 */

export { openFileStore } from './file/open-file-store.js';
export type { FileStoreOptions } from './file/open-file-store.js';
export { FileStore, LazyFileStore };
export type { FileSystem, OwnerInfo };
/** The files of one database (snapshot, log, lock, socket, answers), named after its path. */
export { storePaths, type StorePaths } from './paths.js';
/** Whether a statement only reads: a forwarded write counts the others as changes. */
export { isReadOnlySql } from './file/file-tx.js';
/** Runs around the one compile of SQLite's WebAssembly, for V8 settings meant for it alone. */
export { aroundSqliteCompile } from './file/sql-js.js';
/** The real file system, and the helpers every user of a `FileSystem` needs. */
export { errnoCode, nodeFileSystem, readAt, unlinkIfPresent } from './file/file-system.js';

/** The file operations `store` was opened with; the real ones for any other store. */
export function fileSystemOf(store: Store): FileSystem {
  if (store instanceof FileStore || store instanceof LazyFileStore) return store.fileSystem;
  return nodeFileSystem;
}

/** Who holds the lock of the database at `path` now (see lock-files.ts): `'blank'` while being taken, undefined when free. */
export function lockOwner(path: string, fs: Partial<FileSystem> = {}): OwnerInfo | 'blank' | undefined {
  return readOwner(withFileSystem(fs), storePaths(path).lockDir);
}
