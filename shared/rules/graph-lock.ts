import type { Tx } from '../store/store.js';

/**
 * The key of the PostgreSQL advisory lock that serializes changes to the relation graph:
 * the bytes of "baton:gr". Advisory keys are shared by everything on one database, so it
 * is one no other application is likely to pick.
 */
const GRAPH_LOCK_KEY = '7089075310397384562';

/**
 * Takes, until the transaction ends, the lock every change to the relation graph takes:
 * a new `blocks` or parent relation, a removed one, a priority change (which refreshes
 * effective priorities along the graph), an issue created with relations.
 *
 * Such a change reads the graph to decide (is there a cycle? which issues does this
 * issue transitively block?) and then writes on what it read. On PostgreSQL, at READ
 * COMMITTED, two of them on different issues lock different rows and would both decide
 * on a graph without the other's edge: together they could close a cycle neither saw, or
 * leave an effective priority that counts only one of them. Under this lock the second
 * waits, then reads what the first committed. Take it first, before any row lock of the
 * transaction: a graph change that waited for it while holding an issue row could
 * deadlock with the holder, which may update that row's effective priority. Changes to
 * relations are rare, so making them wait in turn costs nothing measurable.
 *
 * The file store runs every write under its lock, so there it changes nothing.
 */
export async function lockRelationGraph(tx: Tx): Promise<void> {
  if (tx.dialect.name !== 'postgres') return;
  await tx.get(`SELECT pg_advisory_xact_lock(${GRAPH_LOCK_KEY})`);
}
