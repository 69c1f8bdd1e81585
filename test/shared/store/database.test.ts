import { describe, expect, test } from 'vitest';
import { createDatabase, exportSnapshot, openSnapshotImage } from '../../../shared/store/file/database.js';
import { readSnapshotHeader } from '../../../shared/store/file/snapshot-header.js';
import { DatabaseImage, loadSqlJs, openImage, type SqlJsDatabase } from '../../../shared/store/file/sql-js.js';

function settings(db: SqlJsDatabase): Record<string, unknown> {
  const read = (name: string) => db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0];
  return { foreignKeys: read('foreign_keys'), journal: read('journal_mode'), locking: read('locking_mode'), synchronous: read('synchronous') };
}

const EXPECTED = { foreignKeys: 1, journal: 'memory', locking: 'exclusive', synchronous: 0 };

/** An image holding a copy of `bytes`, as `readSnapshot` reads one from a file. */
function imageOf(bytes: Uint8Array): DatabaseImage {
  const image = new DatabaseImage(bytes.length);
  image.array.set(bytes);
  return image;
}

describe('the in-memory copy', () => {
  test('is opened with its connection settings, and keeps them across a snapshot export', async () => {
    const sqlJs = await loadSqlJs();
    const created = createDatabase(sqlJs);
    expect(settings(created.db)).toEqual(EXPECTED);
    const bytes = exportSnapshot(created.db, 7, created.databaseId);
    expect(settings(created.db)).toEqual(EXPECTED);
    // The database stays writable after an export.
    created.db.exec("INSERT INTO meta (name, value) VALUES ('after-export', 'yes')");
    const reopened = openSnapshotImage(sqlJs, imageOf(bytes));
    expect(settings(reopened.db)).toEqual(EXPECTED);
    expect(reopened.appliedSeq).toBe(7);
    expect(reopened.databaseId).toBe(created.databaseId);
    created.db.close();
    reopened.db.close();
  });

  test('lives in the array of the image it was opened from, and grows into it', async () => {
    const sqlJs = await loadSqlJs();
    const created = createDatabase(sqlJs);
    const image = imageOf(exportSnapshot(created.db, 0, created.databaseId));
    created.db.close();
    const db = openImage(sqlJs, image);
    db.exec('CREATE TABLE filler (text TEXT NOT NULL)');
    db.run('WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40) INSERT INTO filler (text) SELECT hex(zeroblob(250)) FROM n');
    const exported = db.export();
    db.close();
    // The file grew, within the room behind the image: sql.js wrote it into the image's
    // own array rather than into a copy. (The export is a fresh copy made with SQLite's
    // backup, whose first page has counters of its own; every other page is the file's.)
    const { pageSize } = readSnapshotHeader(exported);
    expect(exported.length).toBeGreaterThan(image.length);
    expect(exported.length).toBeLessThanOrEqual(image.array.length);
    expect(Buffer.from(image.array.subarray(pageSize, exported.length)).equals(exported.subarray(pageSize))).toBe(true);
  });
});
