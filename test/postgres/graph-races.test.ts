import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Baton } from '../../shared/baton.js';
import { DEFAULTS } from '../../shared/config.js';
import type { Result } from '../../shared/result.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';
import type { Store } from '../../shared/store/store.js';
import { gate, holdFirst, steeredStore } from './steered-store.js';
import { ADMIN_URL, createTestDatabase, type TestDatabase } from './test-database.js';
import { sleep } from '../helpers/wait.js';

// Two changes to the relation graph on different issues lock different rows. Each test holds
// the first change just before it commits, after it has checked for cycles and refreshed
// effective priorities, and starts the second: it must wait for the first and then decide on
// the graph the first left, never on the graph as it was before.

describe.skipIf(!ADMIN_URL)('PostgreSQL store: concurrent changes to the relation graph', () => {
  let db: TestDatabase;
  let store: Store;
  let setup: Baton;
  let sessions = 0;

  beforeEach(async () => {
    db = await createTestDatabase();
    store = await openPostgresStore({ url: db.url });
    setup = session(store);
  });
  afterEach(async () => {
    await store?.close();
    await db?.drop();
  });

  function session(on: Store): Baton {
    return new Baton({ store: on, caller: { agent: 'a', session: `graph-${++sessions}`, renewer: null, worktree: null }, config: DEFAULTS });
  }

  async function issue(title: string, priority = 2): Promise<string> {
    const created = await setup.createIssue({ title, priority });
    if (!created.ok) throw new Error(created.error.message);
    return created.value.issue.key;
  }

  /** Whether some session of this database waits for a lock (the second change, queued behind the first). */
  async function someoneWaits(): Promise<boolean> {
    for (let i = 0; i < 200; i++) {
      const rows = await db.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock'`, [db.name]);
      if (rows.rowCount) return true;
      await sleep(10);
    }
    return false;
  }

  /**
   * Runs `first` held at its activity event (its last write, after the graph checks and the
   * refresh), then `second`; lets `first` commit once `second` has finished or is seen waiting.
   */
  async function race<A, B>(first: (b: Baton) => Promise<Result<A>>, second: (b: Baton) => Promise<Result<B>>) {
    const beforeCommit = gate();
    const held = session(steeredStore(store, { before: holdFirst(/^INSERT INTO events/, beforeCommit) }));
    const one = first(held);
    await beforeCommit.reached;
    const two = second(session(store));
    try {
      await Promise.race([two, someoneWaits()]);
    } finally {
      beforeCommit.open();
    }
    return Promise.all([one, two]);
  }

  it('refuses the second of two relations on disjoint issues that together close a blocks cycle', async () => {
    const [a, b, c, d] = [await issue('A'), await issue('B'), await issue('C'), await issue('D')];
    expect((await setup.relate({ key: b, type: 'blocks', other: c })).ok).toBe(true);
    expect((await setup.relate({ key: d, type: 'blocks', other: a })).ok).toBe(true);

    const [one, two] = await race(
      (x) => x.relate({ key: a, type: 'blocks', other: b }),
      (y) => y.relate({ key: c, type: 'blocks', other: d }),
    );

    expect(one.ok).toBe(true);
    expect(two.ok ? 'related' : two.error).toMatchObject({ code: 'CYCLE', path: [c, d, a, b, c] });
    const edges = await db.query('SELECT 1 FROM relations WHERE type = $1', ['blocks']);
    expect(edges.rowCount).toBe(3);
  });

  it('refuses the second of two parent links on disjoint issues that together make a parent cycle', async () => {
    const [a, b, c, d] = [await issue('A'), await issue('B'), await issue('C'), await issue('D')];
    expect((await setup.relate({ key: a, type: 'parent', other: b })).ok).toBe(true);
    expect((await setup.relate({ key: c, type: 'parent', other: d })).ok).toBe(true);

    const [one, two] = await race(
      (x) => x.relate({ key: b, type: 'parent', other: c }),
      (y) => y.relate({ key: d, type: 'parent', other: a }),
    );

    expect(one.ok).toBe(true);
    expect(two.ok ? 'related' : two.error).toMatchObject({ code: 'CYCLE' });
  });

  it('gives the effective priority that both of two concurrent blocks relations make', async () => {
    const [a, b, c, d] = [await issue('A', 3), await issue('B', 3), await issue('C', 3), await issue('D', 0)];
    expect((await setup.relate({ key: b, type: 'blocks', other: c })).ok).toBe(true);

    const [one, two] = await race(
      (x) => x.relate({ key: a, type: 'blocks', other: b }),
      (y) => y.relate({ key: c, type: 'blocks', other: d }),
    );

    expect([one.ok, two.ok]).toEqual([true, true]);
    const found = await setup.getIssue({ key: a });
    expect(found.ok && found.value.issue.effectivePriority).toBe(0);
  });

  it('gives the effective priority that a priority change and a concurrent blocks relation make', async () => {
    const [a, b, c] = [await issue('A', 3), await issue('B', 3), await issue('C', 3)];
    expect((await setup.relate({ key: b, type: 'blocks', other: c })).ok).toBe(true);

    const [one, two] = await race(
      (x) => x.relate({ key: a, type: 'blocks', other: b }),
      (y) => y.updateIssue({ key: c, priority: 0 }),
    );

    expect([one.ok, two.ok]).toEqual([true, true]);
    const found = await setup.getIssue({ key: a });
    expect(found.ok && found.value.issue.effectivePriority).toBe(0);
  });
});
