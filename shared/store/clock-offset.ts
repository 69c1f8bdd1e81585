import type { Store } from './store.js';

/**
 * How far this machine's clock is ahead of the store's, in milliseconds (negative when
 * behind). Leases follow the store's clock: the database's on PostgreSQL, this machine's
 * for the file. Whatever counts a lease down on screen subtracts this from `Date.now()`.
 */
export async function clockOffsetMs(store: Store): Promise<number> {
  if (store.backend !== 'postgres') return 0;
  const { clockOffsetMs: offset } = await store.info();
  return typeof offset === 'number' ? offset : 0;
}
