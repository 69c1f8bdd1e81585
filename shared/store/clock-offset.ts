import type { Store, StoreInfo } from './store.js';

/**
 * How far this machine's clock is ahead of the store's, in milliseconds (negative when
 * behind). Leases follow the store's clock: the database's on PostgreSQL, this machine's
 * for the file. Whatever counts a lease down on screen subtracts this from `Date.now()`.
 */
export async function clockOffsetMs(store: Store): Promise<number> {
  return store.backend === 'postgres' ? clockOffsetIn(await store.info()) : 0;
}

/** The offset as a store's `info()` already measured it (0 where it measures none). */
export function clockOffsetIn(info: StoreInfo): number {
  return typeof info.clockOffsetMs === 'number' ? info.clockOffsetMs : 0;
}
