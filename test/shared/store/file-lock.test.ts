import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { FileLock, LockTimeoutError } from '../../../shared/store/file/file-lock.js';
import { nodeFileSystem } from '../../../shared/store/file/file-system.js';
import { HOST_TAG, isProcessAlive, processStartTime } from '../../../shared/store/file/lock-files.js';
import { scratchDir } from './helpers.js';
import { sleep } from '../../helpers/wait.js';

let scratch: ReturnType<typeof scratchDir>;
let dir: string;

beforeEach(() => {
  scratch = scratchDir('lock');
  dir = join(scratch.dir, 'baton.db.lock');
});

afterEach(() => scratch.remove());

const lock = (options: { timeoutMs?: number; staleMs?: number } = {}) =>
  new FileLock(dir, { fs: nodeFileSystem, timeoutMs: options.timeoutMs ?? 5_000, staleMs: options.staleMs ?? 30_000 });

/** A pid that no running process has: a child that has exited and been reaped. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}

describe('file lock', () => {
  test('waiters get the lock in the order they asked for it', async () => {
    const first = lock();
    const hold = await first.acquire();
    const order: string[] = [];
    const waiting = ['b', 'c', 'd'].map(async (name, i) => {
      await sleep(i * 30);
      const l = lock();
      const h = await l.acquire();
      order.push(name);
      await sleep(5);
      l.release(h);
    });
    await sleep(150);
    first.release(hold);
    await Promise.all(waiting);
    expect(order).toEqual(['b', 'c', 'd']);
  });

  test('a holder killed before its parent reaped it is judged dead', async () => {
    const child = spawn('sleep', ['30']);
    await new Promise((resolve) => child.on('spawn', resolve));
    process.kill(child.pid!, 'SIGKILL');
    // The event loop does not run here, so the child cannot be reaped: it is a zombie.
    const until = Date.now() + 2_000;
    while (Date.now() < until && !readFileSync(`/proc/${child.pid}/stat`, 'latin1').includes(') Z')) {
      // wait for the kernel to finish the kill
    }
    expect(isProcessAlive(child.pid!)).toBe(false);
  });

  test('a lock whose holder died is taken over within a fraction of a second', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'owner'), JSON.stringify({ pid: await deadPid(), host: (await import('node:os')).hostname(), nonce: 'gone', at: Date.now() }));
    const started = performance.now();
    const l = lock();
    l.release(await l.acquire());
    expect(performance.now() - started).toBeLessThan(500);
  });

  test('an empty owner file left by a holder killed while acquiring is broken after a second', async () => {
    mkdirSync(dir, { recursive: true });
    closeSync(openSync(join(dir, 'owner'), 'w'));
    const started = performance.now();
    const l = lock();
    l.release(await l.acquire());
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(900);
    expect(waited).toBeLessThan(2_500);
  });

  test('a holder on another host is judged by age alone', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'owner'), JSON.stringify({ pid: 1, host: 'another-container', nonce: 'far', at: Date.now() }));
    const error = await lock({ timeoutMs: 200, staleMs: 60_000 }).acquire().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    expect((error as Error).message).toMatch(/^locked by pid 1 on another-container for \d+\.\ds$/);
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, 'owner'), old, old);
    const l = lock({ staleMs: 60_000 });
    l.release(await l.acquire());
  });

  test.runIf(process.platform === 'linux')(
    'a holder on this machine whose process still runs keeps the lock however long it is silent; a later process reusing its pid does not',
    async () => {
      const sleeper = spawn('sleep', ['30']);
      await new Promise((resolve) => sleeper.on('spawn', resolve));
      try {
        mkdirSync(dir, { recursive: true });
        const pid = sleeper.pid!;
        const owner = (started: string) => {
          writeFileSync(join(dir, 'owner'), JSON.stringify({ pid, host: hostname(), nonce: 'here', at: Date.now(), started }));
          const old = new Date(Date.now() - 120_000);
          utimesSync(join(dir, 'owner'), old, old);
        };
        // Stopped, say, and silent for two minutes against a stale limit of one second.
        owner(processStartTime(pid)!);
        const error = await lock({ timeoutMs: 300, staleMs: 1_000 }).acquire().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(LockTimeoutError);
        expect((error as Error).message).toMatch(new RegExp(`^locked by pid ${pid} for`));
        // The same pid, started at another time: the holder is gone and its pid reused.
        owner('1');
        const started = performance.now();
        const l = lock({ timeoutMs: 2_000, staleMs: 60_000 });
        l.release(await l.acquire());
        expect(performance.now() - started).toBeLessThan(500);
      } finally {
        sleeper.kill();
      }
    },
  );

  test('a holder that wrote no start time (an older Baton) and still runs is judged by age', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'owner'), JSON.stringify({ pid: process.ppid, host: hostname(), nonce: 'older', at: Date.now() }));
    const error = await lock({ timeoutMs: 200, staleMs: 60_000 }).acquire().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LockTimeoutError);
    const old = new Date(Date.now() - 120_000);
    utimesSync(join(dir, 'owner'), old, old);
    const l = lock({ staleMs: 60_000 });
    l.release(await l.acquire());
  });

  test('the ticket of a waiter that died does not hold up the queue', async () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `t-000000000001-${HOST_TAG}-${await deadPid()}-dead`), '');
    const started = performance.now();
    const l = lock();
    l.release(await l.acquire());
    expect(performance.now() - started).toBeLessThan(500);
  });

  test('a stopped waiter is passed at once, and named when nobody can pass it', async () => {
    const sleeper = spawn('sleep', ['30']);
    await new Promise((resolve) => sleeper.on('spawn', resolve));
    try {
      process.kill(sleeper.pid!, 'SIGSTOP');
      mkdirSync(dir, { recursive: true });
      // Queued, then stopped before it could take the free lock; its ticket is fresh.
      writeFileSync(join(dir, `t-000000000001-${HOST_TAG}-${sleeper.pid}-stopped`), '');
      const started = performance.now();
      const l = lock();
      l.release(await l.acquire());
      expect(performance.now() - started).toBeLessThan(500);
      // From another host it cannot be judged by its process: the queue names it.
      writeFileSync(join(dir, `t-000000000001-elsewhere-${sleeper.pid}-stopped`), '');
      const error = await lock({ timeoutMs: 200 }).acquire().catch((e: unknown) => e);
      expect((error as Error).message).toMatch(new RegExp(`behind the waiter pid ${sleeper.pid} on another host$`));
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  test('a stopped holder keeps the lock, ticket and all', async () => {
    const sleeper = spawn('sleep', ['30']);
    await new Promise((resolve) => sleeper.on('spawn', resolve));
    try {
      process.kill(sleeper.pid!, 'SIGSTOP');
      const pid = sleeper.pid!;
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'owner'), JSON.stringify({ pid, host: hostname(), nonce: 'held', at: Date.now(), started: processStartTime(pid) }));
      writeFileSync(join(dir, `t-000000000001-${HOST_TAG}-${pid}-held`), '');
      // Behind it, a stopped waiter: passed, while the holder is not.
      writeFileSync(join(dir, `t-000000000002-${HOST_TAG}-${pid}-waits`), '');
      const error = await lock({ timeoutMs: 300 }).acquire().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(LockTimeoutError);
      expect((error as Error).message).toMatch(new RegExp(`^locked by pid ${pid} for`));
      expect(readdirSync(dir).sort()).toEqual(['owner', `t-000000000001-${HOST_TAG}-${pid}-held`]);
    } finally {
      sleeper.kill('SIGKILL');
    }
  });

  test('a waiter queued behind a holder that queued too sleeps until the lock is free', async () => {
    const first = lock();
    const firstHold = await first.acquire();
    const second = lock();
    const secondHold = second.acquire();
    await sleep(30);
    let wakeUps = 0;
    // Polling only for killed processes, rarely: every wake-up below comes from a file event.
    const third = new FileLock(dir, { fs: nodeFileSystem, timeoutMs: 5_000, staleMs: 30_000, pollMs: 5_000 });
    const thirdWaits = Date.now();
    const thirdHold = third.acquire(() => wakeUps++);
    await sleep(30);
    const woken = wakeUps;
    // The second takes the lock from the head of the queue; its ticket stays there.
    first.release(firstHold);
    const hold = await secondHold;
    await sleep(100);
    expect(wakeUps).toBe(woken);
    expect(readdirSync(dir).filter((name) => name.startsWith('t-'))).toHaveLength(2);
    // The control: the release it waits for does wake it, by a file event (its first poll comes 5 s after it began waiting).
    second.release(hold);
    third.release(await thirdHold);
    expect(Date.now() - thirdWaits).toBeLessThan(5_000);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a holder that died with its ticket at the head of the queue is taken over within a fraction of a second', async () => {
    mkdirSync(dir, { recursive: true });
    const pid = await deadPid();
    writeFileSync(join(dir, 'owner'), JSON.stringify({ pid, host: (await import('node:os')).hostname(), nonce: 'gone', at: Date.now() }));
    writeFileSync(join(dir, `t-000000000001-${HOST_TAG}-${pid}-gone`), '');
    const started = performance.now();
    const l = lock();
    l.release(await l.acquire());
    expect(performance.now() - started).toBeLessThan(500);
  });

  test('a waiter that times out leaves no ticket behind', async () => {
    const holder = lock();
    const hold = await holder.acquire();
    await expect(lock({ timeoutMs: 100 }).acquire()).rejects.toBeInstanceOf(LockTimeoutError);
    holder.release(hold);
    expect(readdirSync(dir)).toEqual([]);
  });

  test('a holder whose owner file was broken knows it no longer holds the lock', async () => {
    const l = lock();
    const hold = await l.acquire();
    expect(l.isHeld(hold)).toBe(true);
    const { unlinkSync } = await import('node:fs');
    unlinkSync(join(dir, 'owner'));
    const successor = lock();
    const next = await successor.acquire();
    expect(l.isHeld(hold)).toBe(false);
    // Letting go of a lock that passed on must leave the successor's owner file alone.
    l.release(hold);
    expect(successor.isHeld(next)).toBe(true);
    successor.release(next);
  });

  test('where files cannot be watched, waiters poll and still get the lock in order', async () => {
    const unwatchable = { ...nodeFileSystem, watch: (() => { throw Object.assign(new Error('no inotify'), { code: 'ENOSYS' }); }) as typeof nodeFileSystem.watch };
    const polling = () => new FileLock(dir, { fs: unwatchable, timeoutMs: 5_000, staleMs: 30_000 });
    const first = polling();
    const hold = await first.acquire();
    const order: string[] = [];
    const waiting = ['b', 'c'].map(async (name, i) => {
      await sleep(i * 30);
      const l = polling();
      const h = await l.acquire();
      order.push(name);
      l.release(h);
    });
    await sleep(100);
    const released = performance.now();
    first.release(hold);
    await Promise.all(waiting);
    expect(order).toEqual(['b', 'c']);
    expect(performance.now() - released).toBeLessThan(1_000);
  });
});
