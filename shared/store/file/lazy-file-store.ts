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

  async read<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return (await this.open()).read(fn);
  }

  async write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
    return (await this.open()).write(fn);
  }

  async version(): Promise<string> {
    return (await this.open()).version();
  }

  async analyze(): Promise<void> {
    return (await this.open()).analyze();
  }

  async compact(): Promise<void> {
    return (await this.open()).compact();
  }

  async info(): Promise<StoreInfo> {
    return (await this.open()).info();
  }

  async close(): Promise<void> {
    this.closed = true;
    const file = await this.opening?.catch(() => undefined);
    await file?.close();
  }
}
