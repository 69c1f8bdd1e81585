import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../postgres/test-database.js';

const SKEWED_CLOCK = join(__dirname, '..', 'postgres', 'fixtures', 'skewed-clock.cjs');

describe('baton doctor on PostgreSQL', () => {
  let repo: ScratchRepo;
  beforeAll(() => {
    repo = makeRepo();
  });
  afterAll(() => repo.remove());

  it('reports a server it cannot reach as a failed connection, with exit 1 and no password', async () => {
    const run = await runCli(['doctor', '--json', '--no-probe'], { cwd: repo.main, env: { BATON_DATABASE_URL: 'postgres://baton:s3cret@127.0.0.1:1/baton' } });
    expect(run.status).toBe(1);
    const report = run.json();
    expect(report).toMatchObject({ ok: false, backend: 'postgres' });
    expect(report.checks.find((c: { name: string }) => c.name === 'connection')).toMatchObject({ status: 'fail', detail: expect.stringContaining('STORE_UNAVAILABLE'), fix: expect.stringContaining('BATON_DATABASE_URL') });
    expect(run.stdout + run.stderr).not.toContain('s3cret');
  });

  describe.skipIf(!ADMIN_URL)('with a server', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => db?.drop());

    it('reports the PostgreSQL backend, a working connection and the schema version', async () => {
      const env = { BATON_DATABASE_URL: db.url };
      expect((await runCli(['add', 'On the server'], { cwd: repo.main, env })).status).toBe(0);
      const run = await runCli(['doctor', '--json', '--no-probe'], { cwd: repo.main, env });
      expect(run.status).toBe(0);
      const report = run.json();
      expect(report).toMatchObject({ ok: true, backend: 'postgres', schemaVersion: expect.any(Number) });
      const status = Object.fromEntries(report.checks.map((c: { name: string; status: string }) => [c.name, c.status]));
      expect(status).toMatchObject({ database: 'ok', connection: 'ok', schema: 'ok' });
      expect(status['lock files']).toBeUndefined();
      expect(status.clock).toBeUndefined();
    });

    it('counts leases down by the database clock on a machine whose clock is ten minutes fast, and says so', async () => {
      // Node started with a preload that moves Date.now() and new Date() ten minutes on.
      const fast = { BATON_DATABASE_URL: db.url, NODE_OPTIONS: `--require ${SKEWED_CLOCK}`, BATON_TEST_CLOCK_SKEW_MS: String(10 * 60_000) };
      const added = await runCli(['add', 'Held on a fast machine', '--json'], { cwd: repo.main, env: { BATON_DATABASE_URL: db.url } });
      const key = added.json().issue.key;
      const store = await openPostgresStore({ url: db.url });
      try {
        const caller = { agent: 'alice', session: 'alice-session', renewer: null, worktree: null };
        expect((await new Baton({ store, caller, config: DEFAULTS }).claimIssue({ key })).ok).toBe(true);
      } finally {
        await store.close();
      }
      const claims = await runCli(['claims'], { cwd: repo.main, env: fast });
      // 30 minutes from the claim on the database's clock: 29:5x or 30:00 left, not 19:5x;
      // renewed seconds ago, not ten minutes.
      const left = /(29:5\d|30:00)/;
      expect(claims.stdout).toMatch(new RegExp(`${key}.* ${left.source} +\\d+s ago`));
      const shown = await runCli(['show', key], { cwd: repo.main, env: fast });
      expect(shown.stdout).toMatch(left);
      const report = (await runCli(['doctor', '--json', '--no-probe'], { cwd: repo.main, env: fast })).json();
      expect(report.checks.find((c: { name: string }) => c.name === 'clock')).toMatchObject({ status: 'warn', detail: expect.stringMatching(/^this machine's clock is 10m ahead of the database's/) });
      expect(report.checks.find((c: { name: string }) => c.name === 'leases').detail).toMatch(left);
    });
  });
});
