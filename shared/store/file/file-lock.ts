import { randomBytes } from 'node:crypto';
import type { FSWatcher } from 'node:fs';
import type { FileSystem } from './file-system.js';
import { errnoCode, statOrUndefined, unlinkIfPresent } from './file-system.js';
import type { OwnerInfo, Ticket } from './lock-files.js';
import {
  HOST,
  HOST_TAG,
  OWNER_FILE,
  PROCESS_STARTED,
  breakOwner,
  createTicket,
  isOwnerGone,
  isTicketStale,
  ownerIdleMs,
  queuedTickets,
  readOwner,
  tryCreateOwner,
} from './lock-files.js';

/** Settings of the cross-process lock. */
export interface FileLockOptions {
  fs: FileSystem;
  /** How long `acquire` waits before giving up. */
  timeoutMs: number;
  /** A holder or waiter silent this long is presumed gone even if its pid cannot be checked. */
  staleMs: number;
  /** How often a waiter looks for a dead holder (no file event announces a SIGKILL). */
  pollMs?: number;
}

/** Why `acquire` gave up: who holds the lock and for how long. */
export class LockTimeoutError extends Error {}

/** Proof of holding the lock, handed back to `release`. */
export interface LockHold {
  readonly nonce: string;
  readonly acquiredAt: number;
  /** The owner file, open: removed by a breaker, its link count drops to zero. */
  readonly fd: number;
  /** The ticket this holder queued with, if it had to queue: removed on release (see `acquire`). */
  readonly ticket?: string;
}

/**
 * A fair cross-process lock made of files in one folder (see lock-files.ts for the
 * layout). Waiters queue with tickets and only the head of the queue competes for the
 * owner file, so no process starves; wake-ups come from `fs.watch` on the one file
 * each waiter waits for, so a hand-over costs one file event rather than a polling
 * interval, and waiting costs no CPU. A short poll remains for what no event
 * announces: a holder killed outright.
 */
export class FileLock {
  private readonly pollMs: number;
  // A nonce tells one acquisition from every other: a random prefix per lock object plus a counter.
  private readonly noncePrefix = randomBytes(6).toString('hex');
  private acquisitions = 0;

  constructor(
    readonly dir: string,
    private readonly options: FileLockOptions,
  ) {
    this.pollMs = options.pollMs ?? 25;
  }

  /**
   * Waits for the lock. `whileWaiting` runs each time this process wakes without getting
   * the lock: useful work (catching up on the log) done outside the lock.
   * Throws `LockTimeoutError` after `timeoutMs`.
   */
  async acquire(whileWaiting?: () => void): Promise<LockHold> {
    const { fs } = this.options;
    const nonce = `${this.noncePrefix}${(this.acquisitions++).toString(36)}`;
    const deadline = Date.now() + this.options.timeoutMs;
    let names = this.list();
    // Nobody holds it and nobody waits: take it without queueing (the common case).
    if (!names.includes(OWNER_FILE) && queuedTickets(names).length === 0) {
      const hold = this.tryOwn(nonce);
      if (hold) return hold;
      names = this.list();
    }
    let ticket = createTicket(fs, this.dir, names, nonce);
    const waiter = new FileWaiter(fs);
    let acquired = false;
    let lastRefresh = Date.now();
    try {
      let woke: 'event' | 'timeout' = 'event';
      for (;;) {
        const queue = queuedTickets(this.list());
        let position = queue.findIndex((t) => t.name === ticket.name);
        if (position < 0) {
          // Judged stale by someone while this process was stalled: queue again.
          ticket = createTicket(fs, this.dir, queue.map((t) => t.name), nonce);
          position = queue.length;
        }
        if (position === 0) {
          // The ticket stays at the head of the queue until release: the next waiter, which
          // watches it, then wakes once, when the lock is free. Removing it here woke that
          // waiter in the middle of the hold, and on busy cores it took the holder's core.
          const hold = this.tryOwn(nonce, ticket.name);
          if (hold) {
            acquired = true;
            return hold;
          }
          // A broken stale owner makes way at once: try again without waiting for its event.
          if (woke === 'timeout' && this.breakIfStale()) continue;
        } else if (woke === 'timeout') {
          // Only a poll that timed out suggests a dead waiter ahead: a live queue moves by
          // events. Checking the pid of every waiter ahead at each of them cost processes
          // writing at once a noticeable share of their CPU per write. When one was dead, look
          // again at once, still as after a timeout: it may have been the holder, whose
          // owner file is then judged too.
          if (this.dropStaleAhead(queue.slice(0, position))) continue;
        }
        whileWaiting?.();
        const now = Date.now();
        if (now >= deadline) throw new LockTimeoutError(this.describeHolder());
        if (now - lastRefresh > this.options.staleMs / 3) {
          // A waiter on another host is judged by age: show that this one is still here.
          try {
            fs.utimesSync(`${this.dir}/${ticket.name}`, new Date(now), new Date(now));
          } catch {
            // Removed as stale meanwhile: the next round queues again.
          }
          lastRefresh = now;
        }
        // The head waits for the owner to go, everyone else for the ticket just ahead: one
        // wake-up per hand-over, and waiters further back sleep through it.
        const awaited = position === 0 ? OWNER_FILE : queue[position - 1].name;
        if (!waiter.watch(`${this.dir}/${awaited}`)) {
          woke = 'event';
          continue;
        }
        // The head, and the waiter behind the holder's ticket, poll for a killed holder;
        // waiters further back only for killed waiters ahead.
        const interval = waiter.interval(position <= 1 ? this.pollMs : this.pollMs * 4);
        woke = await waiter.next(Math.min(interval, deadline - now));
      }
    } finally {
      waiter.close();
      if (!acquired) unlinkIfPresent(fs, `${this.dir}/${ticket.name}`);
    }
  }

  /**
   * Whether `hold` still owns the lock (it may have been broken as stale). The owner
   * file this holder created is still linked exactly while nobody broke it.
   */
  isHeld(hold: LockHold): boolean {
    return this.options.fs.fstatSync(hold.fd).nlink > 0;
  }

  /** Marks progress, so a holder doing long work (compaction) is not judged stale by age. */
  touch(): void {
    const now = new Date();
    try {
      this.options.fs.utimesSync(`${this.dir}/${OWNER_FILE}`, now, now);
    } catch {
      // Only a hint for others' staleness checks.
    }
  }

  /**
   * Lets go of the lock, unless it has meanwhile passed to someone else. The owner file
   * goes first: until the ticket goes too, it heads the queue and nobody takes the lock.
   */
  release(hold: LockHold): void {
    const { fs } = this.options;
    try {
      if (this.isHeld(hold)) unlinkIfPresent(fs, `${this.dir}/${OWNER_FILE}`);
      if (hold.ticket) unlinkIfPresent(fs, `${this.dir}/${hold.ticket}`);
    } finally {
      fs.closeSync(hold.fd);
    }
  }

  private tryOwn(nonce: string, ticket?: string): LockHold | undefined {
    const info: OwnerInfo = { pid: process.pid, host: HOST, nonce, at: Date.now() };
    if (PROCESS_STARTED) info.started = PROCESS_STARTED;
    const fd = tryCreateOwner(this.options.fs, this.dir, info);
    return fd === undefined ? undefined : { nonce, acquiredAt: info.at, fd, ticket };
  }

  private list(): string[] {
    try {
      return this.options.fs.readdirSync(this.dir) as string[];
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT') throw error;
      // Not recursive: the database's folder is made with the database, and one that has
      // disappeared must not come back as a side effect of someone's next write.
      this.options.fs.mkdirSync(this.dir, { mode: 0o700 });
      return [];
    }
  }

  /** Breaks the owner file of a holder that is dead (same host) or silent past `staleMs`; true when it did. */
  private breakIfStale(): boolean {
    const { fs, staleMs } = this.options;
    const owner = readOwner(fs, this.dir);
    if (owner === undefined) return false;
    const idle = ownerIdleMs(fs, this.dir, Date.now());
    if (idle === undefined) return false;
    // A blank owner is a holder killed between creating and writing the file: give it a moment.
    const stale = owner === 'blank' ? idle > Math.min(staleMs, 1000) : isOwnerGone(owner, idle, staleMs);
    return stale && breakOwner(fs, this.dir, owner === 'blank' ? 'blank' : owner.nonce, 1000);
  }

  /** Removes the tickets of dead or stopped waiters (or a dead holder) ahead; true when it removed any. */
  private dropStaleAhead(ahead: Ticket[]): boolean {
    const owner = readOwner(this.options.fs, this.dir);
    const holder = owner === 'blank' ? 'blank' : owner?.nonce;
    let dropped = false;
    for (const ticket of ahead) {
      if (isTicketStale(this.options.fs, this.dir, ticket, this.options.staleMs, holder)) {
        unlinkIfPresent(this.options.fs, `${this.dir}/${ticket.name}`);
        dropped = true;
      }
    }
    return dropped;
  }

  private describeHolder(): string {
    const owner = readOwner(this.options.fs, this.dir);
    if (typeof owner !== 'object') {
      const head = queuedTickets(this.list())[0];
      const behind = head && head.pid !== process.pid ? ` behind the waiter pid ${head.pid}${head.hostTag === HOST_TAG ? '' : ' on another host'}` : '';
      return `lock queue did not move for ${(this.options.timeoutMs / 1000).toFixed(1)}s${behind}`;
    }
    const where = owner.host === HOST ? '' : ` on ${owner.host}`;
    return `locked by pid ${owner.pid}${where} for ${((Date.now() - owner.at) / 1000).toFixed(1)}s`;
  }
}

/**
 * Wakes a waiter when the one file it waits on changes or goes: the owner file for the
 * head of the queue, the ticket just ahead for everyone else. Watching that file rather
 * than the folder matters with many waiters: a folder watch wakes every waiter for
 * every ticket and owner file anyone creates or removes. Falls back to fast polling
 * where the platform offers no file events.
 */
class FileWaiter {
  private path: string | undefined;
  private watcher: FSWatcher | undefined;
  private watchable = true;
  /** An event came: the watched inode is likely gone, and a file of that name is a new one. */
  private fired = false;
  private pending = false;
  private wake: (() => void) | undefined;

  constructor(private readonly fs: FileSystem) {}

  /**
   * Watches `path` from now on. False when it is already gone, which is the awaited
   * event itself; true when watching it, or when polling stands in for watching.
   */
  watch(path: string): boolean {
    if (path === this.path && this.watcher && !this.fired) return true;
    this.close();
    this.pending = false;
    this.fired = false;
    if (!this.watchable) return statOrUndefined(this.fs, path) !== undefined;
    try {
      this.watcher = this.fs.watch(path, { persistent: false }, () => this.onEvent());
    } catch (error) {
      if (errnoCode(error) === 'ENOENT') return false;
      this.watchable = false;
      return statOrUndefined(this.fs, path) !== undefined;
    }
    // A failing watch (the file system was unmounted, say) must not leave the waiter asleep.
    this.watcher.on('error', () => this.onEvent());
    this.path = path;
    return true;
  }

  /** The longest sensible sleep: the poll period, or a short one without file events. */
  interval(pollMs: number): number {
    return this.watchable ? pollMs : Math.min(pollMs, 5);
  }

  /** Resolves on an event of the watched file or after `ms`. */
  next(ms: number): Promise<'event' | 'timeout'> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve('event');
    }
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve('timeout');
      }, Math.max(ms, 1));
      this.wake = () => {
        clearTimeout(timer);
        resolve('event');
      };
    });
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    this.path = undefined;
  }

  // Any event counts (removal shows as a change of the link count, then as a rename): the
  // loop looks at the folder again, so a spurious wake-up costs one listing.
  private onEvent(): void {
    this.fired = true;
    const wake = this.wake;
    this.wake = undefined;
    if (wake) wake();
    else this.pending = true;
  }
}
