import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ManualClock } from '../../../shared/clock.js';
import { fail, ok } from '../../../shared/result.js';
import { SQLITE_MIGRATIONS } from '../../../shared/store/sqlite-schema.js';
import { addComment, commentTexts, insertIssue } from './helpers.js';
import { storeScratch } from './store-scratch.js';

const scratch = storeScratch('store', 'nested', 'baton', 'baton.db');
const open = scratch.open;

describe('file store', () => {
  test('creates the folder and files on first use, private to the user', async () => {
    await open();
    expect(statSync(scratch.path).mode & 0o777).toBe(0o600);
    expect(statSync(`${scratch.path}-log`).mode & 0o777).toBe(0o600);
    expect(statSync(join(scratch.dir, 'nested', 'baton')).mode & 0o777).toBe(0o700);
  });

  test('a write in one store is read by another store on the same file', async () => {
    const a = await open();
    const b = await open();
    await addComment(a, 'first');
    expect(await commentTexts(b)).toEqual(['first']);
    await addComment(b, 'second');
    expect(await commentTexts(a)).toEqual(['first', 'second']);
  });

  test('a reopened store holds every committed write', async () => {
    const a = await open();
    for (let i = 0; i < 5; i++) await addComment(a, `c${i}`);
    await a.close();
    expect(await commentTexts(await open())).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
  });

  test('a refused write changes nothing anywhere', async () => {
    const a = await open();
    const b = await open();
    const result = await a.write(async (tx) => {
      await insertIssue(tx, 7);
      return fail('NOT_FOUND', 'no');
    });
    expect(result.ok).toBe(false);
    expect(await a.read((tx) => tx.all('SELECT * FROM issues'))).toEqual([]);
    expect(await b.read((tx) => tx.all('SELECT * FROM issues'))).toEqual([]);
  });

  test('an exception inside a write rolls it back and reaches the caller', async () => {
    const a = await open();
    await expect(
      a.write(async (tx) => {
        await insertIssue(tx, 7);
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(await a.read((tx) => tx.all('SELECT * FROM issues'))).toEqual([]);
  });

  test('a write that changes nothing appends no record', async () => {
    const a = await open();
    const before = statSync(`${scratch.path}-log`).size;
    const version = await a.version();
    await a.write(async (tx) => ok(await tx.all('SELECT * FROM issues')));
    expect(statSync(`${scratch.path}-log`).size).toBe(before);
    expect(await a.version()).toBe(version);
  });

  test('tx.now comes from the injected clock, taken inside the write', async () => {
    const clock = new ManualClock(1_000);
    const a = await open({ clock });
    clock.set(5_000);
    const now = await a.write(async (tx) => ok(tx.now));
    expect(now).toEqual(ok(5_000));
  });

  test('a read transaction refuses statements that change data', async () => {
    const a = await open();
    await expect(a.read((tx) => tx.run('DELETE FROM issues'))).rejects.toThrow(/read transaction/);
    await expect(a.read((tx) => tx.all('DELETE FROM issues'))).rejects.toThrow(/read transaction/);
  });

  test('version changes when another store commits and not otherwise', async () => {
    const a = await open();
    const b = await open();
    const v1 = await a.version();
    expect(await a.version()).toBe(v1);
    await addComment(b, 'x');
    expect(await a.version()).not.toBe(v1);
  });

  test('statements run through get or all inside a write are replayed too', async () => {
    const a = await open();
    const b = await open();
    await a.write(async (tx) => {
      await insertIssue(tx, 1);
      const row = await tx.get<{ id: number }>(
        `INSERT INTO comments (issue_id, text, agent, at) VALUES (1, 'returned', 'a', 0) RETURNING id`,
      );
      return ok(row?.id);
    });
    expect(await commentTexts(b)).toEqual(['returned']);
  });

  test('info reports the backend, schema version and file sizes', async () => {
    const a = await open();
    await addComment(a, 'x');
    const info = await a.info();
    expect(info).toMatchObject({ backend: 'file', location: scratch.path, schemaVersion: SQLITE_MIGRATIONS.length });
    expect(info.sizes!.snapshot).toBe(statSync(scratch.path).size);
    expect(info.sizes!.log).toBe(statSync(`${scratch.path}-log`).size);
  });

  test('compaction folds the log into the snapshot while other stores keep reading and writing', async () => {
    const a = await open({ compactAfterBytes: 2_000 });
    const b = await open();
    for (let i = 0; i < 20; i++) await addComment(a, `c${i}`);
    expect(statSync(`${scratch.path}-log`).size).toBeLessThan(2_000);
    expect(await commentTexts(b)).toHaveLength(20);
    await addComment(b, 'after');
    expect(await commentTexts(a)).toHaveLength(21);
    const fresh = await open();
    expect(await commentTexts(fresh)).toHaveLength(21);
    expect(existsSync(scratch.path)).toBe(true);
  });
});
