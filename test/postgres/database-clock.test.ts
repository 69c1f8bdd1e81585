import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { StoreInfo } from '../../shared/store/store.js';
import { BatonProcess, bundleBatonProcess } from './baton-processes.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

const TEN_MINUTES = 10 * 60_000;

describe.skipIf(!ADMIN_URL)('PostgreSQL store: the database clock', () => {
  let db: TestDatabase;
  let bundle: Awaited<ReturnType<typeof bundleBatonProcess>>;
  let cwd: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    bundle = await bundleBatonProcess();
    cwd = mkdtempSync(join(tmpdir(), 'baton-pg-cwd-'));
    // Migrate once up front, so the processes below only read the clock.
    await (await openPostgresStore({ url: db.url })).close();
  });
  afterAll(async () => {
    await db?.drop();
    bundle?.remove();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it('gives a transaction the database time when the process clock runs ten minutes fast', async () => {
    const fast = BatonProcess.start(bundle.file, { databaseUrl: db.url, agent: 'fast', clockSkewMs: TEN_MINUTES, cwd });
    try {
      await fast.ready;
      const before = await db.now();
      const txNow = await fast.call<number>('txNow');
      const after = await db.now();
      const localNow = await fast.call<number>('localNow');
      expect(txNow).toBeGreaterThanOrEqual(before);
      expect(txNow).toBeLessThanOrEqual(after);
      // The skew was real in that process.
      expect(localNow - after).toBeGreaterThan(TEN_MINUTES - 5_000);
      const info = await fast.call<StoreInfo>('info');
      expect(Math.abs((info.clockOffsetMs as number) - TEN_MINUTES)).toBeLessThan(5_000);
    } finally {
      await fast.stop();
    }
  });

  it('gives a transaction the database time when the process clock runs ten minutes slow', async () => {
    const slow = BatonProcess.start(bundle.file, { databaseUrl: db.url, agent: 'slow', clockSkewMs: -TEN_MINUTES, cwd });
    try {
      await slow.ready;
      const before = await db.now();
      const txNow = await slow.call<number>('txNow');
      const after = await db.now();
      expect(txNow).toBeGreaterThanOrEqual(before);
      expect(txNow).toBeLessThanOrEqual(after);
    } finally {
      await slow.stop();
    }
  });

  it('reports the offset of a skewed process clock in info(), and still hands out the database time', async () => {
    const store = await openPostgresStore({ url: db.url, clockSkewMs: -TEN_MINUTES });
    try {
      const before = await db.now();
      const txNow = await store.read(async (tx) => tx.now);
      const after = await db.now();
      expect(txNow).toBeGreaterThanOrEqual(before);
      expect(txNow).toBeLessThanOrEqual(after);
      const info = await store.info();
      expect(Math.abs((info.clockOffsetMs as number) + TEN_MINUTES)).toBeLessThan(5_000);
    } finally {
      await store.close();
    }
  });
});
