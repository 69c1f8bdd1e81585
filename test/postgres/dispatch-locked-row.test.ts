import { describe, expect, it } from 'vitest';
import { rowLockerFixture } from './row-locker.js';
import { ADMIN_URL } from './test-database.js';
import { sleep } from '../helpers/wait.js';

// Dispatch passes over rows that another transaction holds locked, so that claimers do not
// queue behind one another. But a ready issue's row is also locked, for a moment, by
// writes that do not claim it (an edit, a comment, a sweep recording a reclaim): an agent
// asking for work then must not be told that nothing is ready.

describe.skipIf(!ADMIN_URL)('PostgreSQL store: dispatch past a row another transaction holds', () => {
  const fixture = rowLockerFixture();

  async function createIssue(title: string): Promise<string> {
    const created = await fixture.session('planner').createIssue({ title });
    if (!created.ok) throw new Error(created.error.message);
    return created.value.issue.key;
  }

  /** Locks the issue's row in a transaction of its own, as an edit does, until `finish` runs. */
  async function lockRow(key: string): Promise<(sql?: string) => Promise<void>> {
    await fixture.locker.query('BEGIN');
    await fixture.locker.query('SELECT id FROM issues WHERE key = $1 FOR UPDATE', [key]);
    return async (sql) => {
      if (sql) await fixture.locker.query(sql, [key]);
      await fixture.locker.query('COMMIT');
    };
  }

  it('waits for a ready issue locked by an edit and claims it', async () => {
    const key = await createIssue('Only one');
    const finish = await lockRow(key);
    const asked = fixture.session('worker').nextIssue({});
    await sleep(150);
    await finish(`UPDATE issues SET title = 'Only one, edited' WHERE key = $1`);
    const answer = await asked;
    expect(answer.ok && answer.value?.issue.key).toBe(key);
    expect(answer.ok && answer.value?.issue.title).toBe('Only one, edited');
  });

  it('answers nothing ready when the locked issue stopped being ready meanwhile', async () => {
    const key = await createIssue('Cancelled while asked for');
    const finish = await lockRow(key);
    const asked = fixture.session('worker').nextIssue({});
    await sleep(150);
    await finish(`UPDATE issues SET status = 'cancelled' WHERE key = $1`);
    const answer = await asked;
    expect(answer).toEqual({ ok: true, value: null });
  });

  it('takes an unlocked ready issue without waiting for a locked one ahead of it', async () => {
    const first = await createIssue('First in line');
    const second = await createIssue('Second in line');
    const finish = await lockRow(first);
    try {
      const answer = await fixture.session('worker').nextIssue({});
      expect(answer.ok && answer.value?.issue.key).toBe(second);
    } finally {
      await finish();
    }
  });

  it('hands a batch the free issues at once, without waiting for a locked one', async () => {
    const first = await createIssue('Locked');
    const second = await createIssue('Free');
    const finish = await lockRow(first);
    try {
      const answer = await fixture.session('worker').nextBatch({ max: 2 });
      expect(answer.ok && answer.value.items.map((item) => item.issue.key)).toEqual([second]);
    } finally {
      await finish();
    }
  });

  it('waits for a batch whose every ready issue is locked', async () => {
    const key = await createIssue('Locked alone');
    const finish = await lockRow(key);
    const asked = fixture.session('worker').nextBatch({ max: 3 });
    await sleep(150);
    await finish();
    const answer = await asked;
    expect(answer.ok && answer.value.items.map((item) => item.issue.key)).toEqual([key]);
  });
});
