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
 * Also counts statements per transaction, and how many of them changed data. Samples
 * are kept per operation of the work loop (`current()` names the one under way).
 */
export interface PhaseSamples {
  wait: number[];
  work: number[];
  commit: number[];
  statements: number[];
  changes: number[];
}

export type Phases = Record<string, PhaseSamples>;

/**
 * `spans()` receives, for every write inside the window, the epoch times when its callback
 * started and when the write returned, flat: [start, end, start, end, …]. Merged across
 * processes they show how long the lock sat free between one writer and the next.
 */
export function instrument(store: Store, phases: () => Phases, spans: () => number[], recording: () => boolean, current: () => string): Store {
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
  const samplesOf = (op: string) => (phases()[op] ??= { wait: [], work: [], commit: [], statements: [], changes: [] });
  const timed = async <T>(kind: 'read' | 'write', call: (wrap: (fn: (tx: Tx) => Promise<T>) => (tx: Tx) => Promise<T>) => Promise<T>): Promise<T> => {
    const op = current();
    const counts = { statements: 0, changes: 0 };
    const started = performance.now();
    let entered = 0;
    let left = 0;
    const result = await call((fn) => async (tx) => {
      entered = performance.now();
      try {
        return await fn(counted(tx, counts));
      } finally {
        left = performance.now();
      }
    });
    if (recording() && entered > 0) {
      const s = samplesOf(kind === 'read' ? `${op}:read` : op);
      s.wait.push(entered - started);
      s.work.push(left - entered);
      s.commit.push(performance.now() - left);
      s.statements.push(counts.statements);
      s.changes.push(counts.changes);
      if (kind === 'write') {
        const end = performance.now();
        spans().push(performance.timeOrigin + entered, performance.timeOrigin + end);
      }
    }
    return result;
  };
  return {
    backend: store.backend,
    location: store.location,
    read: (fn) => timed('read', (wrap) => store.read(wrap(fn))),
    write: (fn) => timed('write', (wrap) => store.write(wrap(fn))),
    version: () => store.version(),
    analyze: () => store.analyze(),
    compact: () => store.compact(),
    info: () => store.info(),
    close: () => store.close(),
  };
}
