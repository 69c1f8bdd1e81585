import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../postgres/test-database.js';

describe.skipIf(!ADMIN_URL)('baton import on PostgreSQL', () => {
  let repo: ScratchRepo;
  let db: TestDatabase;
  beforeAll(async () => {
    repo = makeRepo();
    db = await createTestDatabase();
  });
  afterAll(async () => {
    repo?.remove();
    await db?.drop();
  });

  const planned = async (table: string) =>
    Number((await db.query<{ n: number }>(`SELECT reltuples AS n FROM pg_class WHERE oid = '${table}'::regclass`)).rows[0].n);

  it('leaves the planner statistics current, so dispatch is planned for the tables as they now are', async () => {
    const path = join(repo.dir, 'issues.json');
    writeFileSync(path, JSON.stringify([{ title: 'Schema' }, { title: 'Storage' }, { title: 'Endpoints', blockedBy: ['Schema'] }]));
    const run = await runCli(['import', path, '--json'], { cwd: repo.main, env: { BATON_DATABASE_URL: db.url } });
    expect(run.status).toBe(0);
    expect(run.json().created).toHaveLength(3);
    // A table no ANALYZE has seen shows -1 here.
    expect(await planned('issues')).toBe(3);
    expect(await planned('relations')).toBe(1);
  });
});
