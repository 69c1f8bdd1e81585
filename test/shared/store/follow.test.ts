import * as nodeFs from 'node:fs';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { FileSystem } from '../../../shared/store/file/index.js';
import type { Store } from '../../../shared/store/store.js';
import { addComment, commentTexts } from './helpers.js';
import { storeScratch } from './store-scratch.js';
import { sleep, waitFor } from '../../helpers/wait.js';

const scratch = storeScratch('follow', 'baton.db');

/**
 * A store whose reads of its files are counted (the log's records and, on a reload, the
 * snapshot), and the watches it puts up.
 */
async function counted(options: { compactAfterBytes?: number } = {}) {
  const reads = { count: 0 };
  const watches = { count: 0 };
  const fs: Partial<FileSystem> = {
    readSync: ((...args: Parameters<typeof nodeFs.readSync>) => {
      reads.count++;
      return nodeFs.readSync(...args);
    }) as typeof nodeFs.readSync,
    watch: ((...args: Parameters<typeof nodeFs.watch>) => {
      watches.count++;
      return nodeFs.watch(...args);
    }) as typeof nodeFs.watch,
  };
  const store = await scratch.open({ fs, ...options });
  return { store, reads, watches };
}

/** Waits until `reads` has stood still for 50 ms: whatever the store does in the background is done. */
async function settled(reads: { count: number }): Promise<void> {
  const deadline = Date.now() + 5000;
  for (let seen = -1; seen !== reads.count && Date.now() < deadline; ) {
    seen = reads.count;
    await sleep(50);
  }
}

/**
 * A writer that has added the comment 'first', and a counted store that has read it:
 * a copy read lately, which may follow.
 */
async function writerAndReader() {
  const writer = await scratch.open();
  await addComment(writer, 'first');
  const reader = await counted();
  expect(await commentTexts(reader.store)).toEqual(['first']);
  return { writer, ...reader };
}

/** Once the store has settled, its next read finds `texts` without reading any file: it followed. */
async function expectFollowed(store: Store, reads: { count: number }, texts: string[]): Promise<void> {
  await settled(reads);
  reads.count = 0;
  expect(await commentTexts(store)).toEqual(texts);
  expect(reads.count).toBe(0);
}

/**
 * The writer adds 'second' and `store` reads nothing until asked; asked, it catches up by
 * reading the log. A control copy that follows shows, in the same window, that the write
 * was there to be followed: `store` read nothing while the control read the record.
 */
async function expectNotFollowing(writer: Store, store: Store, reads: { count: number }): Promise<void> {
  const control = await counted();
  expect(await commentTexts(control.store)).toEqual(['first']);
  control.store.follow(true);
  await settled(control.reads);
  reads.count = 0;
  control.reads.count = 0;
  await addComment(writer, 'second');
  await waitFor(() => control.reads.count > 0, 5_000, 'the control copy to follow the write');
  await settled(control.reads);
  expect(reads.count).toBe(0);
  expect(await commentTexts(store)).toEqual(['first', 'second']);
  expect(reads.count).toBeGreaterThan(0);
}

describe('a copy following the log', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  test('replays what another process writes before it is asked, so its next read reads no file', async () => {
    const { writer, store: follower, reads } = await writerAndReader();
    follower.follow(true);
    await addComment(writer, 'second');
    await settled(reads);
    expect(reads.count).toBeGreaterThan(0);
    await expectFollowed(follower, reads, ['first', 'second']);
  });

  test('goes on following when a writer folds the log into a new snapshot', async () => {
    const writer = await scratch.open({ compactAfterBytes: 2048 });
    const { store: follower, reads } = await counted({ compactAfterBytes: 2048 });
    expect(await commentTexts(follower)).toEqual([]);
    follower.follow(true);
    const texts = Array.from({ length: 12 }, (_, i) => `${i} ${'x'.repeat(400)}`);
    for (const text of texts) await addComment(writer, text);
    const { logBaseSeq } = await writer.info();
    expect(logBaseSeq).toBeGreaterThan(0);
    await settled(reads);
    // Into the new log, which the follower must be watching by now.
    await addComment(writer, 'after');
    expect((await writer.info()).logBaseSeq).toBe(logBaseSeq);
    await expectFollowed(follower, reads, [...texts, 'after']);
  });

  test('stops when told to, and the next read catches up as before', async () => {
    const { writer, store: follower, reads } = await writerAndReader();
    follower.follow(true);
    await settled(reads);
    follower.follow(false);
    await sleep(10);
    await expectNotFollowing(writer, follower, reads);
  });

  test('keeps its watch through a short pause between calls, and lets go of it after a longer one', async () => {
    const { writer, store: follower, reads, watches } = await writerAndReader();
    follower.follow(true);
    await settled(reads);
    expect(watches.count).toBe(1);
    follower.follow(false);
    follower.follow(true);
    await settled(reads);
    expect(watches.count).toBe(1);

    follower.follow(false);
    await sleep(100);
    await commentTexts(follower);
    follower.follow(true);
    await settled(reads);
    expect(watches.count).toBe(2);
    await addComment(writer, 'second');
    await expectFollowed(follower, reads, ['first', 'second']);
  });

  test('a copy nobody has read for a while does not follow: the writes of a server that only writes go elsewhere', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const { writer, store: unread, reads } = await writerAndReader();
    expect(unread.followable).toBe(true);
    vi.advanceTimersByTime(1000);
    expect(unread.followable).toBe(false);
    unread.follow(true);
    vi.useRealTimers();
    await expectNotFollowing(writer, unread, reads);
  });

  test('a store that others write through does not follow: it makes their writes itself', async () => {
    const { writer, store: serving, reads } = await writerAndReader();
    serving.setOthersWriteHere(true);
    serving.follow(true);
    await sleep(10);
    await expectNotFollowing(writer, serving, reads);
  });
});
