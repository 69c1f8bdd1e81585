import { randomBytes } from 'node:crypto';
import type { StorePaths } from '../paths.js';
import type { FileSystem } from './file-system.js';
import { errnoCode, fsyncDir, readAt, unlinkIfPresent, writeAt } from './file-system.js';
import type { LogHeader, LogRecord } from './log-format.js';
import { LOG_HEADER_SIZE, RECORD_HEADER_SIZE, decodeLogHeader, decodeRecords, encodeLogHeader } from './log-format.js';

/** The log cannot be used as it is; the reason is for people. */
export class LogProblem extends Error {}

/** What reading the log's new bytes found. */
export type LogRead =
  /** `more`: the read stopped at its byte limit, before `size`; read again for the rest. */
  | { kind: 'records'; records: LogRecord[]; more: boolean }
  /** Bytes this process already applied are gone (a failed append was cut back): reload. */
  | { kind: 'rewound' };

/**
 * One generation of the operation log, held open. The descriptor is kept so that a
 * process can finish reading a log that compaction has just replaced, and so that its
 * inode cannot be reused while this process still compares against it.
 */
export class LogFile {
  /** Offset just past the last complete record read or written. */
  validEnd = LOG_HEADER_SIZE;
  /** File size when last looked at (includes a torn tail, if any). */
  seenSize = LOG_HEADER_SIZE;
  private last: { seq: number; crc: number; start: number } | undefined;
  private isClosed = false;
  /** Flushes on the thread pool that still use the descriptor. */
  private pendingSyncs = 0;

  private constructor(
    private readonly fs: FileSystem,
    readonly fd: number,
    readonly ino: number,
    readonly header: LogHeader,
    readonly writable: boolean,
  ) {}

  /**
   * Opens the log at `path`; undefined when there is none. Throws `LogProblem` for a
   * file that is not a Baton log, without changing it.
   */
  static open(fs: FileSystem, path: string): LogFile | undefined {
    let fd: number;
    let writable = true;
    try {
      fd = fs.openSync(path, 'r+');
    } catch (error) {
      const code = errnoCode(error);
      if (code === 'ENOENT') return undefined;
      if (code !== 'EACCES' && code !== 'EROFS' && code !== 'EPERM') throw error;
      // A read-only copy can still be read; writes will report the store unavailable.
      fd = fs.openSync(path, 'r');
      writable = false;
    }
    try {
      const header = decodeLogHeader(readAt(fs, fd, LOG_HEADER_SIZE, 0));
      if ('problem' in header) throw new LogProblem(header.problem);
      return new LogFile(fs, fd, fs.fstatSync(fd).ino, header, writable);
    } catch (error) {
      fs.closeSync(fd);
      throw error;
    }
  }

  /**
   * Writes a new empty log continuing from `baseSeq` and renames it into place, so no
   * reader ever sees a log without its header; `beforeRename` may still call it off.
   */
  static create(fs: FileSystem, paths: StorePaths, baseSeq: number, databaseId: string, beforeRename?: () => void): LogFile {
    const tmp = `${paths.dir}/${paths.tmpPrefix}${process.pid}-${randomBytes(6).toString('hex')}`;
    try {
      const fd = fs.openSync(tmp, 'wx', 0o600);
      try {
        writeAt(fs, fd, encodeLogHeader(baseSeq, databaseId), 0);
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      beforeRename?.();
      fs.renameSync(tmp, paths.log);
    } catch (error) {
      unlinkIfPresent(fs, tmp);
      throw error;
    }
    fsyncDir(fs, paths.dir);
    const log = LogFile.open(fs, paths.log);
    if (!log) throw new LogProblem('the new operation log vanished');
    return log;
  }

  /** The seq of the last record read or written here, or the seq the generation starts after. */
  get lastSeq(): number {
    return this.last ? this.last.seq : this.header.baseSeq;
  }

  /** The checksum of the last record read or written here (0 when none). */
  get lastCrc(): number {
    return this.last ? this.last.crc : 0;
  }

  /**
   * Reads the complete records added since the last call, given the file's current
   * `size`. Before trusting the new bytes it checks that the last record it returned is
   * still in place: an append whose fsync failed is cut back by its writer, and a
   * process that had already applied it must start over from the snapshot. Throws
   * `LogProblem` for a damaged record with complete records after it. Reads at most
   * `maxBytes` past the last complete record (more only for a record longer than that)
   * and says whether bytes up to `size` remain.
   */
  readNew(size: number, skipThrough: number, maxBytes = Infinity): LogRead {
    // Same size means nothing new, unless a torn tail was there: a writer may have cut it
    // off and appended a record of exactly its length.
    if (size === this.seenSize && size === this.validEnd) return { kind: 'records', records: [], more: false };
    if (size < this.validEnd) return { kind: 'rewound' };
    const from = this.last ? this.last.start : this.validEnd;
    let end = Math.min(size, this.validEnd + maxBytes);
    let read = this.readRecords(from, end, skipThrough);
    // A record longer than the limit: widen the stretch until it holds the record whole.
    while (read !== 'rewound' && read.records.length === 0 && end < size) {
      end = Math.min(size, this.validEnd + 2 * (end - this.validEnd));
      read = this.readRecords(from, end, skipThrough);
    }
    if (read === 'rewound') return { kind: 'rewound' };
    const { records, validEnd, damagedAt } = read;
    if (damagedAt !== undefined) {
      throw new LogProblem(
        `the record at byte ${damagedAt} is damaged and complete records follow it; ` +
          'Baton will neither skip it nor cut off what follows: restore the file from a backup',
      );
    }
    this.seenSize = end;
    this.validEnd = validEnd;
    const newest = records[records.length - 1];
    if (newest) this.last = { seq: newest.seq, crc: newest.crc, start: newest.start };
    return { kind: 'records', records, more: end < size };
  }

  /** Decodes the records between `from` and `end`, after checking that the last one returned is still in place. */
  private readRecords(from: number, end: number, skipThrough: number): ReturnType<typeof decodeRecords> | 'rewound' {
    const bytes = readAt(this.fs, this.fd, end - from, from);
    let skip = 0;
    if (this.last) {
      if (bytes.length < RECORD_HEADER_SIZE || bytes.readUInt32LE(4) !== this.last.crc || Number(bytes.readBigUInt64LE(8)) !== this.last.seq) {
        return 'rewound';
      }
      skip = this.validEnd - from;
    }
    return decodeRecords(bytes.subarray(skip), from + skip, this.lastSeq, skipThrough);
  }

  /** The current size of this generation, read through the open descriptor. */
  size(): number {
    return this.fs.fstatSync(this.fd).size;
  }

  /** Bytes after the last complete record when last read: a record still being written, or one torn. */
  get tornBytes(): number {
    return Math.max(this.seenSize - this.validEnd, 0);
  }

  /**
   * Cuts off a torn tail left by a killed writer. Only under the lock: the next record
   * must start right after the last complete one.
   */
  truncateTornTail(): number {
    const torn = this.tornBytes;
    if (torn > 0) {
      this.fs.ftruncateSync(this.fd, this.validEnd);
      this.fs.fdatasyncSync(this.fd);
      this.seenSize = this.validEnd;
    }
    return torn;
  }

  /**
   * Appends one encoded record (not yet durable: see `sync`). On failure the file is cut
   * back to where it was, so the record never existed for anyone, and the error rethrown.
   */
  append(record: Buffer, seq: number, crc: number): void {
    const start = this.validEnd;
    try {
      writeAt(this.fs, this.fd, record, start);
    } catch (error) {
      try {
        this.fs.ftruncateSync(this.fd, start);
      } catch {
        // The tail may stay; its checksum or seq keeps readers from applying it twice.
      }
      throw error;
    }
    this.validEnd = start + record.length;
    this.seenSize = this.validEnd;
    this.last = { seq, crc, start };
  }

  /**
   * Makes every record written so far durable, by any process: `fdatasync` flushes the
   * file's pages whoever wrote them.
   */
  sync(): void {
    this.fs.fdatasyncSync(this.fd);
  }

  /** `sync` on libuv's thread pool. A `close` meanwhile leaves the descriptor open until it ends. */
  syncAsync(): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error: Error | null) => {
        this.pendingSyncs--;
        if (this.isClosed && this.pendingSyncs === 0) this.closeDescriptor();
        if (error) reject(error);
        else resolve();
      };
      this.pendingSyncs++;
      try {
        this.fs.fdatasync(this.fd, done);
      } catch (error) {
        done(error as Error);
      }
    });
  }

  /** Whether `close` was called (the descriptor number may already belong to another file). */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Closes the descriptor, or lets the last flush under way close it. */
  close(): void {
    if (this.isClosed) return;
    this.isClosed = true;
    if (this.pendingSyncs === 0) this.closeDescriptor();
  }

  private closeDescriptor(): void {
    try {
      this.fs.closeSync(this.fd);
    } catch {
      // Already closed; nothing is lost.
    }
  }
}
