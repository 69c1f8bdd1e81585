import type { Store, Tx } from '../../shared/store/store.js';

/** How a test steers the transactions of one store handle. */
export interface Steering {
  /** The transaction's `now`, in place of the database clock (the rules read every time from it). */
  now?: () => number;
  /** Awaited before each statement runs: a test holds a transaction at a chosen statement. */
  before?: (sql: string) => Promise<void>;
}

/**
 * A store handle whose transactions a test steers, to line up two transactions in one chosen
 * interleaving: the database still runs every statement, takes every lock and re-checks
 * every condition as it would for two processes.
 */
export function steeredStore(inner: Store, steering: Steering): Store {
  const steer = (tx: Tx): Tx => {
    const before = async (sql: string) => steering.before?.(sql);
    return {
      now: steering.now?.() ?? tx.now,
      dialect: tx.dialect,
      all: async (sql, params) => (await before(sql), tx.all(sql, params)),
      get: async (sql, params) => (await before(sql), tx.get(sql, params)),
      run: async (sql, params) => (await before(sql), tx.run(sql, params)),
    };
  };
  return {
    backend: inner.backend,
    location: inner.location,
    read: (fn) => inner.read((tx) => fn(steer(tx))),
    write: (fn) => inner.write((tx) => fn(steer(tx))),
    version: () => inner.version(),
    analyze: () => inner.analyze(),
    compact: () => inner.compact(),
    info: () => inner.info(),
    close: () => inner.close(),
  };
}

/** A gate a steered transaction waits at: `reached` resolves when it arrives, `open` lets it on. */
export function gate(): { wait: () => Promise<void>; reached: Promise<void>; open: () => void } {
  let arrive!: () => void;
  let open!: () => void;
  const reached = new Promise<void>((resolve) => (arrive = resolve));
  const opened = new Promise<void>((resolve) => (open = resolve));
  return {
    reached,
    open,
    wait: () => {
      arrive();
      return opened;
    },
  };
}

/** Holds the first statement that matches `pattern` at `g`; later ones (a retry's) pass. */
export function holdFirst(pattern: RegExp, g: ReturnType<typeof gate>): (sql: string) => Promise<void> {
  let held = false;
  return async (sql) => {
    if (held || !pattern.test(sql)) return;
    held = true;
    await g.wait();
  };
}
