import { DEFAULTS } from '../../shared/config.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { BatonProcess, bundleBatonProcess } from './baton-processes.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

const PROCESSES = 8;
const ISSUES = 500;

interface LoopReport {
  claimed: { key: string; fence: number }[];
  emptyAnswers: number;
  refusals: number;
  ms: number;
}

describe.skipIf(!ADMIN_URL)('PostgreSQL store: dispatch across processes', () => {
  let db: TestDatabase;
  let store: Store;
  let bundle: Awaited<ReturnType<typeof bundleBatonProcess>>;
  let cwd: string;

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ url: db.url });
    bundle = await bundleBatonProcess();
    cwd = mkdtempSync(join(tmpdir(), 'baton-pg-cwd-'));
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
    bundle?.remove();
    if (cwd) rmSync(cwd, { recursive: true, force: true });
  });

  it(`hands each of ${ISSUES} issues to exactly one of ${PROCESSES} processes claiming at once`, { timeout: 180_000 }, async () => {
    const creator = new Baton({
      store,
      caller: { agent: 'planner', session: 'planner-session', renewer: null, worktree: null },
      config: { ...DEFAULTS, prefix: 'BAT', leaseSeconds: 1800, requireReview: false },
    });
    for (let i = 1; i <= ISSUES; i++) {
      // A few priorities, so dispatch order is not just creation order.
      const created = await creator.createIssue({ title: `Issue ${i}`, priority: i % 5 });
      expect(created.ok).toBe(true);
    }

    const racers = Array.from({ length: PROCESSES }, (_, i) =>
      BatonProcess.start(bundle.file, { databaseUrl: db.url, agent: `racer-${i}`, cwd }),
    );
    try {
      await Promise.all(racers.map((r) => r.ready));
      const started = performance.now();
      const reports = await Promise.all(racers.map((r) => r.call<LoopReport>('claimLoop')));
      const elapsed = performance.now() - started;

      const keys = reports.flatMap((r) => r.claimed.map((c) => c.key));
      expect(new Set(keys).size).toBe(keys.length); // no key handed out twice
      expect(keys.length).toBe(ISSUES); // and none left behind
      expect(reports.flatMap((r) => r.claimed).every((c) => c.fence === 1)).toBe(true);
      expect(reports.filter((r) => r.claimed.length > 0).length).toBeGreaterThan(1);

      // What the database holds agrees: one lease and one claim event per issue.
      const leases = await db.query<{ n: string; agents: string }>('SELECT count(*) AS n, count(DISTINCT issue_id) AS agents FROM leases');
      expect(Number(leases.rows[0].n)).toBe(ISSUES);
      const claims = await db.query<{ n: string }>(`SELECT count(*) AS n FROM events WHERE type = 'claimed'`);
      expect(Number(claims.rows[0].n)).toBe(ISSUES);
      const fences = await db.query<{ n: string }>(`SELECT count(*) AS n FROM issues WHERE fence <> 1 OR status <> 'doing'`);
      expect(Number(fences.rows[0].n)).toBe(0);

      // Nobody was told that nothing was ready while an issue was (see dispatch-locked-row.test.ts).
      const empty = reports.reduce((n, r) => n + r.emptyAnswers, 0);
      expect(empty).toBe(0);

      const perProcess = reports.map((r) => r.claimed.length).join(' ');
      process.stderr.write(
        `dispatch race: ${ISSUES} claims by ${PROCESSES} processes in ${elapsed.toFixed(0)} ms ` +
          `(${((ISSUES / elapsed) * 1000).toFixed(0)}/s); per process ${perProcess}; empty answers while work was ready ${empty}\n`,
      );
    } finally {
      await Promise.all(racers.map((r) => r.stop()));
    }
  });
});
