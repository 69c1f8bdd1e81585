import type { Clock } from '../../clock.js';
import { StoreUnavailableError } from '../../errors.js';
import type { Result } from '../../result.js';
import type { ReadOptions, Store, StoreInfo, Tx } from '../store.js';
import { compact } from './compaction.js';
import type { FileSystem } from './file-system.js';
import { failureReason, statOrUndefined } from './file-system.js';
import type { FileLock, LockHold } from './file-lock.js';
import { LockTimeoutError } from './file-lock.js';
import { FileTx } from './file-tx.js';
import { GroupFlush } from './group-flush.js';
import type { LogFile } from './log-file.js';
import { LogFollower } from './log-follower.js';
import type { LoggedStatement } from './log-format.js';
import type { LockedWriter } from './locked-write.js';
import { appendAndCommit, assertHeld, migrate, prepareLog } from './locked-write.js';
import { Mutex } from './mutex.js';
import type { Replica } from './replica.js';
import { LATEST_SCHEMA_VERSION } from './snapshot-header.js';

/** At most this many writes of one process in a row under one hold of the lock… */
const KEEP_LOCK_WRITES = 16;
/** …for no longer than this… */
const KEEP_LOCK_MS = 10;
/** …and released when no write took it within this. */
const KEEP_LOCK_IDLE_MS = 1;

/** A copy follows the log only if it was read within this before it was asked to (see `FileStore.follow`). */
const FOLLOW_IF_READ_WITHIN_MS = 1000;

/** The lock as a write keeps it for the next (see `FileStore.kept`). */
interface KeptLock {
  hold: LockHold;
  /** Writes made under this hold so far. */
  writes: number;
  /** When the last of them kept it. */
  keptAt: number;
}

/** What a `FileStore` is built from (see `openFileStore`). */
export interface FileStoreParts {
  fs: FileSystem;
  clock: Clock;
  lock: FileLock;
  replica: Replica;
  /** Log size in bytes past which a writer folds it into a new snapshot. */
  compactAfterBytes: number;
}

/**
 * The file store: one sql.js copy per process, kept current by replaying the operation
 * log, and changed only under the cross-process lock by appending to that log.
 * Everything touching the copy runs under one in-process mutex, since a transaction
 * awaits between statements and the sweep timer shares the process with tool calls.
 */
export class FileStore implements Store {
  readonly backend = 'file' as const;
  readonly location: string;
  private readonly mutex = new Mutex();
  private readonly flusher: GroupFlush;
  private othersWriteHere = false;
  private closed = false;
  /** Writes of this process waiting for the mutex. */
  private writesQueued = 0;
  /**
   * The lock, kept by a write for the next write of this process: one queued behind it,
   * or, while other processes write through this one, one that arrives within
   * `KEEP_LOCK_IDLE_MS`. Taking and releasing the lock costs a write six system calls on
   * files. Bounded, so that other processes still get their turn.
   */
  private kept: KeptLock | undefined;
  private keptTimer: NodeJS.Timeout | undefined;
  /** Whether the process asked this copy to follow the log, having read it lately (see `follow`). */
  private followWanted = false;
  /** When this copy was last read (`performance.now()`). */
  private readAt = Number.NEGATIVE_INFINITY;
  /** Made on first following, then paused and resumed: see `LogFollower.pause`. */
  private follower: LogFollower | undefined;
  /** A catch-up of the follower is waiting for the mutex: later events need no other. */
  private followQueued = false;

  constructor(private readonly parts: FileStoreParts) {
    this.location = parts.replica.paths.snapshot;
    this.flusher = new GroupFlush(this.location);
  }

  read<T>(fn: (tx: Tx) => Promise<T>, options: ReadOptions = {}): Promise<T> {
    if (!options.quiet) this.readAt = performance.now();
    return this.mutex.run(async () => {
      const replica = this.open();
      replica.catchUp();
      const tx = new FileTx(replica.statements, this.parts.clock.now());
      try {
        return await fn(tx);
      } finally {
        tx.end();
      }
    });
  }

  /**
   * Runs `fn` under the lock and appends its statements to the log. The record is made
   * durable after the lock is released and before this returns: holding the lock
   * through `fdatasync` would make every writer queue behind every other's disk flush,
   * while flushing outside it lets concurrent flushes share one journal commit, and
   * lets the writes of this process that queue meanwhile share one flush (see
   * `GroupFlush`). Nothing acknowledged is lost that way: an acknowledged write has been
   * through an `fdatasync` begun after its append, which flushes every earlier record of
   * the file too, and records are only ever appended, so a crash can only cut off a tail
   * of unacknowledged ones.
   */
  async write<T>(fn: (tx: Tx) => Promise<Result<T>>): Promise<Result<T>> {
    const appended: LogFile[] = [];
    this.writesQueued++;
    try {
      return await this.mutex.run(async () => {
        this.writesQueued--;
        const replica = this.open();
        let kept = this.takeKept();
        if (!kept) {
          // Most of the catching up happens here and while queueing, outside the lock.
          replica.catchUp();
          kept = { hold: await this.acquire(() => replica.catchUp()), writes: 0, keptAt: 0 };
        }
        let keep = false;
        try {
          const result = await this.writeLocked(replica, kept.hold, fn, appended);
          keep = (this.writesQueued > 0 || this.othersWriteHere) && ++kept.writes < KEEP_LOCK_WRITES && Date.now() - kept.hold.acquiredAt < KEEP_LOCK_MS;
          return result;
        } finally {
          if (keep) this.keep(kept);
          else this.release(kept.hold);
        }
      });
    } finally {
      await this.flusher.flush(appended[appended.length - 1], !this.mutex.busy && !this.othersWriteHere);
    }
  }

  /**
   * Gives back the space of deleted rows (`baton prune`): under the lock and caught up,
   * vacuums this copy and writes it as a new snapshot with an empty log. The contents do
   * not change, so other processes' copies stay right as they are; a snapshot written
   * without the vacuum would carry every freed page along.
   */
  async compact(): Promise<void> {
    await this.mutex.run(async () => {
      const replica = this.open();
      const hold = this.takeKept()?.hold ?? (await this.acquire(() => replica.catchUp()));
      try {
        const writer: LockedWriter = { fs: this.parts.fs, lock: this.parts.lock, hold, replica, appended: [] };
        prepareLog(writer);
        replica.exec('VACUUM');
        this.parts.lock.touch();
        if (!compact(this.parts.fs, replica, () => assertHeld(writer))) throw new StoreUnavailableError(this.location, 'could not write a compacted snapshot');
      } finally {
        this.release(hold);
      }
    });
  }

  /**
   * Says whether other processes' writes now come through this one, as they do through
   * the server writing for the others (shared/forwarding). Theirs may then arrive during
   * any flush, so every flush runs in the background and the writes arriving meanwhile
   * share the next one.
   */
  /** The file operations this store uses (tests inject failures into them). */
  get fileSystem(): FileSystem {
    return this.parts.fs;
  }

  setOthersWriteHere(others: boolean): void {
    this.othersWriteHere = others;
    this.updateFollower();
  }

  /**
   * While on, this copy replays the records other processes append as they append them,
   * rather than at its next read: for a process between calls, whose next call then finds
   * its copy current (a server whose agent is thinking, see mcp-server/idle-follow.ts).
   *
   * It costs a wake-up for every write anyone makes, which pays only where the copy is
   * read: so a process turns it off while it is busy, and it is on only for a copy read
   * within the last `FOLLOW_IF_READ_WITHIN_MS`. A server whose agent only writes sends
   * its writes to the server writing for all and never reads its own copy; following
   * would make it replay every record for nothing, and with agents that only write,
   * servers following whenever idle lost much of their throughput to it. A process that
   * others write through makes their writes itself and never follows.
   */
  follow(on: boolean): void {
    this.followWanted = on && this.followable;
    this.updateFollower();
  }

  /** Whether `follow(true)` would follow now: whether this copy was read lately. */
  get followable(): boolean {
    return performance.now() - this.readAt < FOLLOW_IF_READ_WITHIN_MS;
  }

  version(): Promise<string> {
    return this.mutex.run(async () => {
      const replica = this.open();
      replica.catchUp();
      // The log id changes with every compaction, the seq with every commit; the checksum
      // tells apart two records that took the same seq after one was cut back.
      const log = replica.log;
      return log ? `${log.header.logId}:${replica.appliedSeq}:${log.lastCrc.toString(36)}` : `nolog:${replica.appliedSeq}`;
    });
  }

  /**
   * Nothing to do: the in-memory copy has no statistics table and SQLite's default plans
   * already use the dispatch index; an `ANALYZE` would also be a logged write that every
   * process replays.
   */
  async analyze(): Promise<void> {}

  info(): Promise<StoreInfo> {
    return this.mutex.run(async () => {
      const replica = this.open();
      replica.catchUp();
      const { fs } = this.parts;
      return {
        backend: 'file',
        location: this.location,
        schemaVersion: replica.userVersion,
        sizes: {
          snapshot: statOrUndefined(fs, replica.paths.snapshot)?.size ?? 0,
          log: statOrUndefined(fs, replica.paths.log)?.size ?? 0,
        },
        appliedSeq: replica.appliedSeq,
        logBaseSeq: replica.log?.header.baseSeq ?? null,
        lock: replica.paths.lockDir,
      };
    });
  }

  close(): Promise<void> {
    return this.mutex.run(async () => {
      if (this.closed) return;
      this.closed = true;
      this.updateFollower();
      const kept = this.takeKept();
      if (kept) this.release(kept.hold);
      this.parts.replica.close();
    });
  }

  /**
   * Brings an older database to the latest schema. Any write does so first, under the
   * lock, as a logged record of its own that every process replays; this is a write
   * that does nothing else.
   */
  async migrate(): Promise<void> {
    await this.write(async () => ({ ok: true, value: undefined }));
  }

  private async writeLocked<T>(replica: Replica, hold: LockHold, fn: (tx: Tx) => Promise<Result<T>>, appended: LogFile[]): Promise<Result<T>> {
    const writer: LockedWriter = { fs: this.parts.fs, lock: this.parts.lock, hold, replica, appended };
    prepareLog(writer);
    if (replica.userVersion < LATEST_SCHEMA_VERSION) migrate(writer);
    const recorded: LoggedStatement[] = [];
    // Taken only now, holding the lock: no later writer can commit an earlier time.
    const tx = new FileTx(replica.statements, this.parts.clock.now(), recorded);
    replica.exec('BEGIN');
    let result: Result<T>;
    try {
      result = await fn(tx);
    } catch (error) {
      tx.end();
      replica.rollback();
      throw error;
    }
    tx.end();
    if (!result.ok || recorded.length === 0) {
      replica.rollback();
      return result;
    }
    appendAndCommit(writer, recorded);
    if (replica.log && replica.log.validEnd >= this.parts.compactAfterBytes) {
      this.parts.lock.touch();
      compact(this.parts.fs, replica, () => assertHeld(writer));
    }
    return result;
  }

  private async acquire(whileWaiting: () => void): Promise<LockHold> {
    try {
      return await this.parts.lock.acquire(whileWaiting);
    } catch (error) {
      if (error instanceof LockTimeoutError) throw new StoreUnavailableError(this.location, error.message);
      // Catching up while queueing may itself find the files unusable; that reason stands.
      if (error instanceof StoreUnavailableError) throw error;
      throw new StoreUnavailableError(this.location, `cannot take the lock (${failureReason(error)})`);
    }
  }

  /** Whether this copy follows the log now (see `follow`). */
  private get following(): boolean {
    return this.followWanted && !this.othersWriteHere && !this.closed;
  }

  private updateFollower(): void {
    if (this.closed) {
      this.follower?.close();
      this.follower = undefined;
    } else if (this.following) {
      this.follower ??= new LogFollower(this.parts.fs, this.parts.replica.paths.log, () => this.followLog());
      this.follower.resume();
      this.followLog();
    } else {
      this.follower?.pause();
    }
  }

  /** Catches up in the background, then watches the log it reached. */
  private followLog(): void {
    if (this.followQueued) return;
    this.followQueued = true;
    this.mutex
      .run(async () => {
        this.followQueued = false;
        const { follower } = this;
        if (!follower || !this.following) return;
        const replica = this.parts.replica;
        replica.catchUp();
        if (follower.watch(replica.log)) this.followLog();
      })
      // Nobody is waiting for this: the next call meets the same files and reports what is wrong.
      .catch(() => {});
  }

  private keep(kept: KeptLock): void {
    kept.keptAt = performance.now();
    this.kept = kept;
    // One timer for a run of writes, rather than one set and cleared by each of them.
    this.keptTimer ??= setTimeout(() => this.releaseIdle(), KEEP_LOCK_IDLE_MS).unref();
  }

  /** Lets go of a kept lock that no write took; a write under way may still take it. */
  private releaseIdle(): void {
    this.keptTimer = undefined;
    if (!this.kept) return;
    if (this.mutex.busy || performance.now() - this.kept.keptAt < KEEP_LOCK_IDLE_MS) {
      this.keptTimer = setTimeout(() => this.releaseIdle(), KEEP_LOCK_IDLE_MS).unref();
      return;
    }
    const { hold } = this.kept;
    this.kept = undefined;
    this.release(hold);
  }

  /** The lock a write kept for this one, if it is still this process's (it may have been judged stale). */
  private takeKept(): KeptLock | undefined {
    const kept = this.kept;
    this.kept = undefined;
    if (!kept || this.parts.lock.isHeld(kept.hold)) return kept;
    this.release(kept.hold);
    return undefined;
  }

  private release(hold: LockHold): void {
    try {
      this.parts.lock.release(hold);
    } catch (error) {
      // The result stands; others will judge the leftover owner file stale by its age.
      console.error(`baton: could not release the lock of ${this.location}: ${(error as Error).message}`);
    }
  }

  private open(): Replica {
    if (this.closed) throw new Error('this store has been closed');
    return this.parts.replica;
  }
}
