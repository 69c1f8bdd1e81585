import type { Store, Tx } from '../shared/store/store.js';

/**
 * Where the time of each transaction goes, seen from outside the store:
 *
 * - `wait`: from the call until the callback starts — the in-process queue, catching up
 *   on other processes' records, and waiting for the cross-process lock (for the
 *   reference: `BEGIN IMMEDIATE` waiting in SQLite's busy handler);
 * - `work`: the callback, i.e. the rules' statements on the engine;
 * - `commit`: from the callback's end until the call returns — encoding, appending and
 *   fsyncing the record, committing, releasing the lock (the reference: `COMMIT`).
 *
 * Also counts statements per transaction, and how many of them changed data.
 */
export interface Phases {
  wait: number[];
  work: number[];
  commit: number[];
  statements: number[];
  changes: number[];
  /** Whole read transactions. */
  reads: number[];
}

export function emptyPhases(): Phases {
  return { wait: [], work: [], commit: [], statements: [], changes: [], reads: [] };
}

export function instrument(store: Store, phases: Phases, recording: () => boolean): Store {
  const counted = (tx: Tx, counts: { statements: number; changes: number }): Tx => ({
    now: tx.now,
    dialect: tx.dialect,
    all: (sql, params) => {
      counts.statements++;
      return tx.all(sql, params);
    },
    get: (sql, params) => {
      counts.statements++;
      return tx.get(sql, params);
    },
    run: (sql, params) => {
      counts.statements++;
      counts.changes++;
      return tx.run(sql, params);
    },
  });
  return {
    backend: store.backend,
    location: store.location,
    async read(fn) {
      const started = performance.now();
      try {
        return await store.read(fn);
      } finally {
        if (recording()) phases.reads.push(performance.now() - started);
      }
    },
    async write(fn) {
      const counts = { statements: 0, changes: 0 };
      const started = performance.now();
      let entered = 0;
      let left = 0;
      const result = await store.write(async (tx) => {
        entered = performance.now();
        try {
          return await fn(counted(tx, counts));
        } finally {
          left = performance.now();
        }
      });
      if (recording() && entered > 0) {
        phases.wait.push(entered - started);
        phases.work.push(left - entered);
        phases.commit.push(performance.now() - left);
        phases.statements.push(counts.statements);
        phases.changes.push(counts.changes);
      }
      return result;
    },
    version: () => store.version(),
    info: () => store.info(),
    close: () => store.close(),
  };
}
