/**
 * The file store: a SQLite snapshot plus an append-only operation log, shared by every
 * Baton process of a repository through a fair cross-process lock.
 */
export { openFileStore } from './open-file-store.js';
export type { FileStoreOptions } from './open-file-store.js';
export type { FileSystem } from './file-system.js';
