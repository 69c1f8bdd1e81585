/**
 * The file store: a SQLite snapshot plus an append-only operation log, shared by every
 * Baton process of a repository through a fair cross-process lock.
 */
export { openFileStore } from './open-file-store.js';
/** Options of `openFileStore`. */
export type { FileStoreOptions } from './open-file-store.js';
/** The file operations a test may replace. */
export type { FileSystem } from './file-system.js';
