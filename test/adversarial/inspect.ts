import type { Store } from '../../shared/store/store.js';

/** How many operations a file store has committed so far (compaction keeps counting). */
export async function committed(store: Store): Promise<number> {
  const seq = (await store.info()).appliedSeq;
  if (typeof seq !== 'number') throw new Error('not a file store: no appliedSeq in info()');
  return seq;
}

/** Every row of every table of the rules, in rowid order: two stores agree when these are equal. */
export async function dumpTables(store: Store): Promise<Record<string, unknown[]>> {
  return store.read(async (tx) => {
    const tables = await tx.all<{ name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'file_store_state' ORDER BY name`,
    );
    const dump: Record<string, unknown[]> = {};
    for (const { name } of tables) dump[name] = await tx.all(`SELECT * FROM "${name}" ORDER BY rowid`);
    return dump;
  });
}
