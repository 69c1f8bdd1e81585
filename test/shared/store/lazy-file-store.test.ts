import { describe, expect, it } from 'vitest';
import { ok } from '../../../shared/result.js';
import { LazyFileStore } from '../../../shared/store/file-access.js';
import { storeScratch } from './store-scratch.js';

const scratch = storeScratch('lazy', 'baton.db');

describe('LazyFileStore.drop', () => {
  it('closes the copy, and the next use opens the file again with what others wrote since', async () => {
    const lazy = new LazyFileStore({ path: scratch.path });
    try {
      await lazy.write(async (tx) => ok(await tx.run("INSERT INTO meta(name, value) VALUES ('x', '1')")));
      const first = lazy.opened;
      expect(await lazy.drop()).toBe(true);
      expect(lazy.opened).toBeUndefined();
      const other = await scratch.open();
      await other.write(async (tx) => ok(await tx.run("UPDATE meta SET value = '2' WHERE name = 'x'")));
      expect(await lazy.read((tx) => tx.get<{ value: string }>("SELECT value FROM meta WHERE name = 'x'"))).toEqual({ value: '2' });
      expect(lazy.opened).toBeDefined();
      expect(lazy.opened).not.toBe(first);
    } finally {
      await lazy.close();
    }
  });

  it('keeps a copy a call is running on, and has none to drop before the first use', async () => {
    const lazy = new LazyFileStore({ path: scratch.path });
    try {
      expect(await lazy.drop()).toBe(false);
      let dropped: boolean | undefined;
      await lazy.read(async () => {
        dropped = await lazy.drop();
      });
      expect(dropped).toBe(false);
      expect(lazy.opened).toBeDefined();
    } finally {
      await lazy.close();
    }
  });
});
