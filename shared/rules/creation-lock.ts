import type { Tx } from '../store/store.js';

/**
 * Takes, until the transaction ends, the lock every creation of an issue takes (the key
 * counter's row) without creating one. A transaction that decides what to create from the
 * issues already there (`baton import` skips titles that exist) takes it before reading
 * them: on PostgreSQL, at READ COMMITTED, a second such transaction waits here and then
 * reads what the first committed, instead of reading before it and creating the same
 * titles again. The file store runs every write under its lock, so there it changes nothing.
 */
export async function lockIssueCreation(tx: Tx): Promise<void> {
  await tx.get(`SELECT value FROM meta WHERE name = 'next_number'${tx.dialect.forUpdate}`);
}
