import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../postgres/test-database.js';

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
    });
  });
});
