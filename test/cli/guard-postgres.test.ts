import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from '../postgres/test-database.js';

const ZERO = '0'.repeat(40);

describe('the push guard on PostgreSQL', () => {
  let repo: ScratchRepo;
  beforeAll(() => {
    repo = makeRepo({ worktrees: ['wt-a', 'wt-b'] });
  });
  afterAll(() => repo.remove());

  it('lets the push through with a warning when the server cannot be reached, and refuses it when strict', async () => {
    const env = { BATON_DATABASE_URL: 'postgres://baton:s3cret@127.0.0.1:1/baton' };
    const input = `refs/heads/topic ${'1'.repeat(40)} refs/heads/topic ${ZERO}\n`;
    const passed = await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: repo.main, env, input });
    expect(passed.status).toBe(0);
    expect(passed.stderr).toMatch(/^baton: warning: the push is not checked: /);
    expect(passed.stderr).not.toContain('s3cret');
    const refused = await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: repo.main, env: { ...env, BATON_GUARD: 'strict' }, input });
    expect(refused.status).toBe(1);
  });

  describe.skipIf(!ADMIN_URL)('with a server', () => {
    let db: TestDatabase;
    beforeAll(async () => {
      db = await createTestDatabase();
    });
    afterAll(async () => db?.drop());

    it("refuses another worktree's push of a branch whose lease lives on the server, and passes the holder's", async () => {
      const [wtA, wtB] = repo.worktrees;
      const store = await openPostgresStore({ url: db.url });
      try {
        const alice = new Baton({ store, caller: { agent: 'alice', session: 'pg-alice', renewer: null, worktree: wtA }, config: DEFAULTS });
        if (!(await alice.createIssue({ title: 'On the server' })).ok) throw new Error('create failed');
        const claimed = await alice.claimIssue({ key: 'BAT-1' });
        if (!claimed.ok) throw new Error(claimed.error.message);
        const branch = claimed.value.lease.branch;
        const input = `refs/heads/${branch} ${'1'.repeat(40)} refs/heads/${branch} ${ZERO}\n`;
        const env = { BATON_DATABASE_URL: db.url };
        const refused = await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: wtB, env, input });
        expect(refused.status).toBe(1);
        expect(refused.stderr).toContain(`${branch} is the branch of BAT-1, held by alice in ${wtA}`);
        const own = await runCli(['guard', 'check', 'origin', '/r.git'], { cwd: wtA, env, input });
        expect(own.status).toBe(0);
        expect(own.stderr).toBe('');
      } finally {
        await store.close();
      }
    });
  });
});
