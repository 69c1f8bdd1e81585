import type { Tx } from '../store/store.js';
import { lockRelationGraph } from './graph-lock.js';

/**
 * Takes, until the transaction ends, the lock every creation of an issue takes (the key
 * counter's row) without creating one. A transaction that decides what to create from the
 * issues already there (`baton import` skips titles that exist) takes it before reading
 * them: on PostgreSQL, at READ COMMITTED, a second such transaction waits here and then
 * reads what the first committed, instead of reading before it and creating the same
 * titles again. The file store runs every write under its lock, so there it changes nothing.
 */
export async function lockIssueCreation(tx: Tx): Promise<void> {
  // Such a transaction may also create issues with relations, which take the graph lock
  // (graph-lock.ts) before the counter's row: taken in that same order here, or the two
  // would deadlock. Creations queue on the counter anyway; this also makes them wait for
  // a relation change in progress, which the dependencies they read may depend on.
  await lockRelationGraph(tx);
  await tx.get(`SELECT value FROM meta WHERE name = 'next_number'${tx.dialect.forUpdate}`);
}
