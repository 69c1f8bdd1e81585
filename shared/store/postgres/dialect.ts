import type { Dialect } from '../store.js';

/**
 * PostgreSQL's pieces of the rules' SQL. Writers run at READ COMMITTED, so a rule that
 * reads a row it will change locks it with ` FOR UPDATE`; dispatch passes over rows that
 * another transaction is claiming (` FOR UPDATE SKIP LOCKED`) instead of queueing behind them.
 */
export const POSTGRES_DIALECT: Dialect = Object.freeze({
  name: 'postgres',
  forUpdate: ' FOR UPDATE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
});
