import { StoreUnavailableError } from '../../errors.js';
import { failureReason } from './file-system.js';
import type { LogFile } from './log-file.js';

/**
 * Makes appended records durable, letting the writes of this process that finish while
 * a flush is under way share the next one (group commit). An `fdatasync` covers every
 * record of the file appended before it began, whoever wrote it, so a write needs one
 * flush that begins after its append, not one of its own.
 *
 * A write that is alone, with nothing else of this process waiting and no other
 * process writing through it, flushes at once, synchronously: handing the flush to
 * another thread would only add latency. Otherwise the flush runs on libuv's thread
 * pool, and the writes queued or arriving meanwhile take the lock and then share the
 * next flush: that is what lets one process holding many sessions, or writing for the
 * other servers, write at the speed of its CPU rather than of the disk.
 */
export class GroupFlush {
  /** The flush under way. It never rejects: its callers see the error. */
  private running: Promise<void> | undefined;
  /** The flush after it, which writes finishing meanwhile join; it begins when `running` ends. */
  private next: { logs: Set<LogFile>; done: Promise<void> } | undefined;

  constructor(private readonly location: string) {}

  /**
   * Resolves once `log` has been through an `fdatasync` begun after this call. `alone`
   * says that no other write is waiting for the store, or may arrive during the flush.
   */
  flush(log: LogFile | undefined, alone: boolean): Promise<void> {
    // Compaction closed it: the snapshot that replaced it was fsynced with the record inside.
    if (!log || log.closed) return Promise.resolve();
    if (alone && !this.running) {
      try {
        log.sync();
      } catch (error) {
        return Promise.reject(this.failure(error));
      }
      return Promise.resolve();
    }
    if (!this.running) return this.start(new Set([log]));
    if (!this.next) {
      const logs = new Set<LogFile>();
      const done = this.running.then(() => {
        this.next = undefined;
        return this.start(logs);
      });
      this.next = { logs, done };
    }
    this.next.logs.add(log);
    return this.next.done;
  }

  private start(logs: Set<LogFile>): Promise<void> {
    const flushed = Promise.all([...logs].filter((log) => !log.closed).map((log) => log.syncAsync())).then(
      () => undefined,
      (error: unknown) => {
        throw this.failure(error);
      },
    );
    const running: Promise<void> = flushed.then(
      () => this.finished(running),
      () => this.finished(running),
    );
    this.running = running;
    return flushed;
  }

  private finished(running: Promise<void>): void {
    if (this.running === running) this.running = undefined;
  }

  private failure(error: unknown): StoreUnavailableError {
    // Other processes may already have built on the record, so it cannot be taken back.
    return new StoreUnavailableError(
      this.location,
      `cannot flush the operation log to disk (${failureReason(error)}); the change may be lost in a power failure`,
    );
  }
}
