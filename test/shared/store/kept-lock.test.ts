import * as nodeFs from 'node:fs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { FileSystem } from '../../../shared/store/file/index.js';
import { addComment, commentTexts } from './helpers.js';
import { storeScratch } from './store-scratch.js';
import { sleep, waitFor } from '../../helpers/wait.js';

const scratch = storeScratch('kept-lock', 'baton.db');
const ownerFile = () => `${scratch.path}.lock/owner`;

/**
 * node:fs counting how often the lock's owner file is created, i.e. the lock taken, and
 * with flushes on the thread pool that end at once: a write awaiting one then hands its
 * lock to the next well within the idle time.
 */
function countingFs() {
  const taken = { count: 0 };
  const fs: Partial<FileSystem> = {
    openSync: ((path: nodeFs.PathLike, flags: nodeFs.OpenMode, mode?: nodeFs.Mode) => {
      if (String(path) === ownerFile()) taken.count++;
      return nodeFs.openSync(path, flags, mode);
    }) as typeof nodeFs.openSync,
    fdatasync: (_fd, callback) => setImmediate(() => callback(null)),
  };
  return { fs, taken };
}

/**
 * After a first write, starts `count` writes at once (comments c0, c1, …); answers how
 * often they took the lock. The clock stands still meanwhile, so that only the count
 * bounds a hold: its time bound (10 ms) would cut in wherever the machine is slow.
 */
async function takenByQueuedWrites(count: number): Promise<number> {
  vi.useFakeTimers({ toFake: ['Date'] });
  const { fs, taken } = countingFs();
  const store = await open(fs);
  await addComment(store, 'first');
  taken.count = 0;
  await Promise.all(Array.from({ length: count }, (_, i) => addComment(store, `c${i}`)));
  return taken.count;
}

describe('the lock kept from one write to the next', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test('writes queued in one process share one hold of the lock, released when the queue is empty', async () => {
    expect(await takenByQueuedWrites(8)).toBe(1);
    expect(nodeFs.existsSync(ownerFile())).toBe(false);
    expect(await commentTexts(await scratch.open())).toEqual(['first', ...Array.from({ length: 8 }, (_, i) => `c${i}`)]);
  });

  test('a hold serves at most 16 writes in a row', async () => {
    expect(await takenByQueuedWrites(40)).toBe(3);
  });

  test('a store that others write through keeps the lock between writes, and lets it go when none comes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] }); // as in takenByQueuedWrites
    const { fs, taken } = countingFs();
    const store = await open(fs);
    store.setOthersWriteHere(true);
    for (let i = 0; i < 32; i++) await addComment(store, `c${i}`);
    expect(taken.count).toBeGreaterThanOrEqual(2);
    expect(taken.count).toBeLessThan(16);
    await waitFor(() => !nodeFs.existsSync(ownerFile()), 5_000, 'the kept lock to be let go');
    await addComment(store, 'after');
    expect(nodeFs.existsSync(ownerFile())).toBe(true);
  });

  test('closing the store releases a kept lock', async () => {
    const store = await scratch.open();
    await addComment(store, 'first');
    store.setOthersWriteHere(true);
    // Queued behind the write, the close runs as soon as the write has kept the lock.
    await Promise.all([addComment(store, 'one'), store.close()]);
    expect(nodeFs.existsSync(ownerFile())).toBe(false);
    expect(await commentTexts(await scratch.open())).toEqual(['first', 'one']);
  });

  test('another writer gets its turn while a store that others write through writes without pause', async () => {
    const busy = await scratch.open();
    busy.setOthersWriteHere(true);
    const other = await scratch.open();
    await addComment(busy, 'first');
    let otherDone = false;
    let busyWrites = 0;
    const deadline = Date.now() + 10_000;
    const writing = (async () => {
      while (!otherDone && Date.now() < deadline) {
        await addComment(busy, `busy ${busyWrites++}`);
      }
    })();
    await sleep(20);
    await addComment(other, 'other');
    otherDone = true;
    await writing;
    expect(Date.now()).toBeLessThan(deadline);
    expect(busyWrites).toBeGreaterThan(0);
    expect(await commentTexts(await scratch.open())).toContain('other');
  });
});

function open(fs: Partial<FileSystem>) {
  return scratch.open({ fs });
}
