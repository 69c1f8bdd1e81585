import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { StoreUnavailableError } from '../../../shared/errors.js';
import { ok } from '../../../shared/result.js';
import { openFileStore } from '../../../shared/store/file/index.js';
import { bundleFixture, startChild, type Child } from './fixtures/child-process.js';
import { addComment, commentTexts, scratchDir } from './helpers.js';
import { sleep } from '../../helpers/wait.js';
import { seededRandom } from '../../helpers/random.js';

let bundle: string;
let scratch: ReturnType<typeof scratchDir>;

beforeAll(async () => {
  scratch = scratchDir('crash');
  bundle = await bundleFixture('store-child.ts', scratch.dir);
});

afterAll(() => scratch.remove());

describe('file store under SIGKILL', () => {
  for (const { inFlight, writes, name } of [
    { inFlight: 1, writes: 'one write', name: 'killed' },
    { inFlight: 4, writes: 'four writes sharing flushes', name: 'killed-batched' },
  ]) {
    test(`writers with ${writes} in flight, killed at random moments, leave every acknowledged write and nothing half-applied`, async () => {
      const path = join(scratch.dir, `${name}.db`);
      await (await openFileStore({ path })).close();
      const acked = new Set<string>();
      // Tiny compactions so that kills also land inside snapshot and log replacement.
      const env = { BATON_TEST_COMPACT: '3000' };
      const random = seededRandom('crash: when to kill');
      let kills = 0;
      let started = 0;
      // Three writers at a time, so kills also hit lock holders and queued waiters.
      const lane = async (): Promise<void> => {
        while (kills < 30) {
          const child = startChild(bundle, ['crash-writer', path, `w${started++}`, String(inFlight)], env);
          // Kill after a random number of acknowledged writes plus a random fraction of one,
          // so that kills land at every point of the write path on a slow machine as on a fast one.
          const acks = 1 + Math.floor(random() * 4);
          await child.waitFor((line) => line.startsWith('ack ') && Number(line.split('-')[1]) >= acks - 1, 30_000);
          await sleep(random() * 8);
          await child.kill();
          kills++;
          for (const line of child.lines) if (line.startsWith('ack ')) acked.add(line.slice(4));
        }
      };
      await Promise.all([lane(), lane(), lane()]);

      const store = await openFileStore({ path, compactAfterBytes: 1 });
      const texts = await commentTexts(store);
      for (const label of acked) expect(texts).toContain(label);
      expect(new Set(texts).size).toBe(texts.length);
      const counts = await store.read((tx) =>
        tx.get<{ comments: number; events: number; next: string }>(
          `SELECT (SELECT count(*) FROM comments) AS comments, (SELECT count(*) FROM events) AS events,
                  (SELECT value FROM meta WHERE name = 'next_number') AS next`,
        ),
      );
      // Each operation wrote a comment, an event and a counter step together, or none of them.
      expect(counts!.events).toBe(counts!.comments);
      expect(Number(counts!.next)).toBe(counts!.comments + 1);
      expect(acked.size).toBeGreaterThanOrEqual(30);
      console.error(`${kills} kills, ${acked.size} acknowledged writes, ${counts!.comments} in the database`);
      // The next compaction, under the lock, removes temporary files the killed writers left.
      await addComment(store, 'after the crashes');
      expect(readdirSync(scratch.dir).filter((file) => file.startsWith(`${name}.db.tmp-`))).toEqual([]);
      await store.close();
    }, 120_000);
  }

  test('a lock holder killed outright is recovered from well within a second', async () => {
    const path = join(scratch.dir, 'holder.db');
    const store = await openFileStore({ path });
    const holder = startChild(bundle, ['hold', path]);
    await holder.waitFor((line) => line === 'holding');
    const waiting = addComment(store, 'after the holder died');
    await sleep(50);
    const killedAt = performance.now();
    await holder.kill();
    await waiting;
    const recoveryMs = performance.now() - killedAt;
    expect(recoveryMs).toBeLessThan(1000);
    expect(await commentTexts(store)).toEqual(['after the holder died']);
    await store.close();
  });

  test('a waiter stopped in the queue holds up nobody, and queues again when it resumes', async () => {
    const path = join(scratch.dir, 'stopped.db');
    const store = await openFileStore({ path, lockTimeoutMs: 5_000 });
    const holder = startChild(bundle, ['hold', path]);
    const stopped = startChild(bundle, ['append', path, '1', 'stopped']);
    try {
      await holder.waitFor((line) => line === 'holding');
      await stopped.waitFor((line) => line === 'ready');
      stopped.go();
      const pid = stopped.process.pid!;
      while (!readdirSync(`${path}.lock`).some((name) => name.includes(`-${pid}-`))) await sleep(5);
      process.kill(pid, 'SIGSTOP');
      await holder.kill();
      // Its ticket heads the queue now and is fresh; a write behind it goes ahead all the same.
      expect((await addComment(store, 'not held up')).ok).toBe(true);
    } finally {
      stopped.process.kill('SIGCONT');
    }
    expect(await stopped.exited).toBe(0);
    expect((await commentTexts(store)).sort()).toEqual(['not held up', 'stopped-0']);
    await store.close();
  });

  test('a write waiting on a live holder gives up after the lock timeout, naming the holder', async () => {
    const path = join(scratch.dir, 'busy.db');
    const store = await openFileStore({ path, lockTimeoutMs: 300 });
    const holder: Child = startChild(bundle, ['hold', path]);
    try {
      await holder.waitFor((line) => line === 'holding');
      const error = await store.write(async () => ok(1)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect((error as StoreUnavailableError).path).toBe(path);
      expect((error as Error).message).toMatch(new RegExp(`locked by pid ${holder.process.pid} for \\d+\\.\\ds`));
    } finally {
      await holder.kill();
    }
    // Its ticket is gone: the next write does not queue behind a ghost.
    expect((await addComment(store, 'x')).ok).toBe(true);
    await store.close();
  });
});
