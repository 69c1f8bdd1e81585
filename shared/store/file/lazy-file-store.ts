import type { Result } from '../../result.js';
import { type FileSystem, withFileSystem } from './file-system.js';
import type { Store, StoreInfo, Tx } from '../store.js';
import type { FileStore } from './file-store.js';
import { type FileStoreOptions, openFileStore } from './open-file-store.js';
import { storePaths } from '../paths.js';

/**
 * The file store of a process that may never need its own copy: a server whose calls all
 * go to the writer (shared/forwarding) holds no database, and does not even start
 * SQLite. The file is opened at the first use of the store, once; an open that failed
 * is tried again at the next use.
 */
export class LazyFileStore implements Store {
  readonly backend = 'file';
  readonly location: string;
  private opening: Promise<FileStore> | undefined;
  private file: FileStore | undefined;
  private othersWriteHere = false;
  private closed = false;
  /** Operations under way on the opened file, which `drop` waits to be none. */
  private busy = 0;

  constructor(private readonly options: FileStoreOptions) {
    this.location = storePaths(options.path).snapshot;
  }

  /** The file operations the store uses once opened. */
  get fileSystem(): FileSystem {
    return withFileSystem(this.options.fs);
  }

  /** The store, once opened. */
  get opened(): FileStore | undefined {
    return this.file;
  }

  /** Opens the file now (the first time); throws `StoreUnavailableError` when it cannot. */
  open(): Promise<FileStore> {
    if (this.closed) return Promise.reject(new Error(`the store of ${this.location} is closed`));
    this.opening ??= openFileStore(this.options).then(
      (file) => {
        this.file = file;
        file.setOthersWriteHere(this.othersWriteHere);
        return file;
      },
      (error: unknown) => {
        this.opening = undefined;
        throw error;
      },
    );
    return this.opening;
  }

  /** As `FileStore.setOthersWriteHere`, kept for the store until it opens. */
  setOthersWriteHere(others: boolean): void {
    this.othersWriteHere = others;
    this.file?.setOthersWriteHere(others);
  }

  /**
   * Closes the copy opened here, when nothing runs on it, so that its memory goes back;
   * the next use opens the file again. For a process whose calls have gone to a writer
   * for a while (the editor): its copy only grows stale. Answers whether it dropped one.
   */
  async drop(): Promise<boolean> {
    const file = this.file;
    if (file === undefined || this.busy > 0 || this.closed) return false;
    this.file = undefined;
    this.opening = undefined;
    await file.close();
    return true;
  }

  read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.using((file) => file.read(fn));
  }

  write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
    return this.using((file) => file.write(fn));
  }

  version(): Promise<string> {
    return this.using((file) => file.version());
  }

  analyze(): Promise<void> {
    return this.using((file) => file.analyze());
  }

  compact(): Promise<void> {
    return this.using((file) => file.compact());
  }

  info(): Promise<StoreInfo> {
    return this.using((file) => file.info());
  }

  /** Runs `fn` on the opened file, counted as under way so that `drop` leaves the file open meanwhile. */
  private async using<T>(fn: (file: FileStore) => Promise<T>): Promise<T> {
    this.busy++;
    try {
      return await fn(await this.open());
    } finally {
      this.busy--;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const file = await this.opening?.catch(() => undefined);
    await file?.close();
  }
}
