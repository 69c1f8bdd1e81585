import * as nodeFs from 'node:fs';
import { describe, expect, test } from 'vitest';
import { StoreUnavailableError } from '../../../shared/errors.js';
import type { FileSystem } from '../../../shared/store/file/index.js';
import { addComment, commentTexts } from './helpers.js';
import { storeScratch } from './store-scratch.js';

const scratch = storeScratch('flush', 'baton.db');
const open = scratch.open;

type Event =
  | { kind: 'append'; fd: number }
  | { kind: 'sync'; fd: number }
  | { kind: 'flush-start' | 'flush-end'; fd: number; id: number }
  | { kind: 'done'; write: number };

interface Options {
  /** Runs before each flush on the thread pool; throwing fails that flush. */
  beforeFlush?: (n: number) => void;
  /** Delays each flush on the thread pool by this many ms. */
  delayMs?: number;
}

/**
 * node:fs recording, in order, appends to the log, flushes on this thread and on the
 * thread pool; and noting any flush that reached a descriptor after it was closed (or
 * reused for another file).
 */
function tracingFs(options: Options = {}) {
  const events: Event[] = [];
  const misuse: string[] = [];
  // Which opening each descriptor belongs to now; a closed one is absent.
  const opening = new Map<number, number>();
  // Descriptors of the lock's files, whose writes are not appends.
  const lockFiles = new Set<number>();
  let openings = 0;
  let flushes = 0;
  const fs: Partial<FileSystem> = {
    openSync: ((path: nodeFs.PathLike, flags: nodeFs.OpenMode, mode?: nodeFs.Mode) => {
      const fd = nodeFs.openSync(path, flags, mode);
      opening.set(fd, ++openings);
      if (String(path).includes('.lock/')) lockFiles.add(fd);
      else lockFiles.delete(fd);
      return fd;
    }) as typeof nodeFs.openSync,
    closeSync: (fd: number) => {
      opening.delete(fd);
      nodeFs.closeSync(fd);
    },
    writeSync: ((fd: number, ...rest: unknown[]) => {
      if (!lockFiles.has(fd)) events.push({ kind: 'append', fd });
      return (nodeFs.writeSync as (...args: unknown[]) => number)(fd, ...rest);
    }) as typeof nodeFs.writeSync,
    fdatasyncSync: (fd: number) => {
      events.push({ kind: 'sync', fd });
      nodeFs.fdatasyncSync(fd);
    },
    fdatasync: (fd, callback) => {
      const id = ++flushes;
      const owner = opening.get(fd);
      events.push({ kind: 'flush-start', fd, id });
      const run = () => {
        if (opening.get(fd) !== owner) misuse.push(`flush ${id} reached descriptor ${fd} after it was closed`);
        try {
          options.beforeFlush?.(id);
        } catch (error) {
          callback(error as NodeJS.ErrnoException);
          return;
        }
        nodeFs.fdatasync(fd, (error) => {
          events.push({ kind: 'flush-end', fd, id });
          callback(error);
        });
      };
      if (options.delayMs) setTimeout(run, options.delayMs);
      else run();
    },
  };
  return { fs, events, misuse };
}

/** Starts `count` writes at once; each notes in `events` when its promise settles. */
function concurrentWrites(store: Awaited<ReturnType<typeof open>>, events: Event[], count: number) {
  return Promise.allSettled(
    Array.from({ length: count }, (_, write) =>
      addComment(store, `c${write}`).finally(() => {
        events.push({ kind: 'done', write });
      }),
    ),
  );
}

describe('group flush', () => {
  test('a write with nothing else waiting flushes at once, on its own thread', async () => {
    const { fs, events } = tracingFs();
    const store = await open({ fs });
    await addComment(store, 'one');
    events.length = 0;
    await addComment(store, 'two');
    expect(events.filter((e) => e.kind === 'sync')).toHaveLength(1);
    expect(events.filter((e) => e.kind === 'flush-start')).toHaveLength(0);
  });

  test('a store that other processes write through flushes even a lone write on the thread pool', async () => {
    const { fs, events } = tracingFs();
    const store = await open({ fs });
    store.setOthersWriteHere(true);
    events.length = 0;
    await addComment(store, 'one');
    expect(events.map((e) => e.kind)).toEqual(['append', 'flush-start', 'flush-end']);
    store.setOthersWriteHere(false);
    events.length = 0;
    await addComment(store, 'two');
    expect(events.map((e) => e.kind)).toEqual(['append', 'sync']);
  });

  test('writes queued in one process share flushes, and each returns only after a flush begun after its append', async () => {
    const { fs, events } = tracingFs();
    const store = await open({ fs });
    await addComment(store, 'first');
    events.length = 0;
    const settled = await concurrentWrites(store, events, 8);
    expect(settled.every((s) => s.status === 'fulfilled')).toBe(true);

    // The mutex runs writes in arrival order, one record each: the n-th append is write n's.
    const appends = events.flatMap((e, at) => (e.kind === 'append' ? [at] : []));
    expect(appends).toHaveLength(8);
    const flushes = events.flatMap((e, at) => {
      if (e.kind === 'sync') return [{ start: at, end: at }];
      if (e.kind !== 'flush-start') return [];
      const end = events.findIndex((f) => f.kind === 'flush-end' && f.id === e.id);
      return [{ start: at, end }];
    });
    expect(flushes.length).toBeLessThan(8);
    for (let write = 0; write < 8; write++) {
      const done = events.findIndex((e) => e.kind === 'done' && e.write === write);
      const covering = flushes.filter((f) => f.start > appends[write] && f.end >= 0 && f.end < done);
      expect(covering.length, `write ${write} returned before a flush that began after its append`).toBeGreaterThan(0);
    }
    expect(await commentTexts(await open())).toEqual(['first', ...Array.from({ length: 8 }, (_, i) => `c${i}`)]);
  });

  test('a failed shared flush fails the writes that waited for it; the others and the next writes go on', async () => {
    const { fs, events } = tracingFs({
      beforeFlush: (n) => {
        if (n === 1) throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
      },
    });
    const store = await open({ fs });
    await addComment(store, 'first');
    events.length = 0;
    const settled = await concurrentWrites(store, events, 4);
    const failed = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.length).toBeLessThan(4);
    for (const { reason } of failed) {
      expect(reason).toBeInstanceOf(StoreUnavailableError);
      expect((reason as StoreUnavailableError).reason).toMatch(/EIO.*may be lost/);
    }
    await addComment(store, 'after');
    // Every record was appended before its flush; every copy agrees that it is there.
    const expected = ['first', 'c0', 'c1', 'c2', 'c3', 'after'];
    expect(await commentTexts(store)).toEqual(expected);
    expect(await commentTexts(await open())).toEqual(expected);
  });

  test('compaction while a flush runs on the thread pool leaves the descriptor open until the flush ends', async () => {
    const { fs, events, misuse } = tracingFs({ delayMs: 20 });
    const sizing = await open();
    await addComment(sizing, 'first');
    const before = nodeFs.statSync(`${scratch.path}-log`).size;
    await addComment(sizing, 'second');
    const record = nodeFs.statSync(`${scratch.path}-log`).size - before;
    // Every third write or so folds the log into a new snapshot and closes the old log,
    // while the flushes of the writes before it are still under way.
    const store = await open({ fs, compactAfterBytes: before + Math.round(2.5 * record) });
    events.length = 0;
    const settled = await concurrentWrites(store, events, 6);
    expect(settled.map((s) => s.status)).toEqual(Array(6).fill('fulfilled'));
    expect(events.some((e) => e.kind === 'flush-start')).toBe(true);
    expect(misuse).toEqual([]);
    expect(await commentTexts(await open())).toEqual(['first', 'second', 'c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
  });
});
