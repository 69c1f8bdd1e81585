import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';

/** Stuck issues, the story and retention on PostgreSQL: the same rules, its own SQL dialect. */
describe.skipIf(!ADMIN_URL)('PostgreSQL store: stuck issues, baton why and retention', () => {
  let db: TestDatabase;
  let store: Store;
  const session = (agent: string, config: Partial<typeof DEFAULTS> = {}) =>
    new Baton({ store, caller: { agent, session: `${agent}-session`, renewer: null, worktree: null }, config: { ...DEFAULTS, leaseSeconds: 1, maxReclaims: 1, ...config } });

  beforeAll(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ url: db.url });
  });
  afterAll(async () => {
    await store?.close();
    await db?.drop();
  });

  it('makes an issue stuck at maxReclaims, tells its story, folds it once finished, and compacts', async () => {
    const ann = session('ann');
    const key = (await ann.createIssue({ title: 'hangs' })).ok ? 'BAT-1' : '';
    const claim = await ann.claimIssue({ key });
    expect(claim.ok).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const swept = await ann.sweep();
    expect(swept.ok && swept.value.reclaimed).toEqual([key]);
    const detail = await ann.getIssue({ key });
    expect(detail.ok && detail.value.issue.status).toBe('stuck');
    const refused = await ann.claimIssue({ key });
    expect(!refused.ok && refused.error).toMatchObject({ code: 'STUCK', reclaims: 1 });

    const story = await ann.story({ key });
    expect(story.ok && story.value.lines.map((l) => l.kind)).toEqual(['created', 'claimed', 'reclaimed', 'stuck']);

    expect((await ann.reopen({ key })).ok).toBe(true);
    expect((await ann.closeAsOperator({ key, reason: 'not needed' })).ok).toBe(true);
    const pruned = await ann.prune({ olderThanDays: 0 });
    expect(pruned.ok && pruned.value).toMatchObject({ events: 6, tokens: 1, more: false });
    const folded = await ann.story({ key });
    expect(folded.ok && folded.value.lines.map((l) => l.kind)).toEqual(['folded']);
    await store.compact();
  });
});
