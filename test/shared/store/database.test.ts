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

describe('a snapshot export', () => {
  /** A database as a process holds it after loading the snapshot: opened in its image. */
  async function loaded(seq: number) {
    const sqlJs = await loadSqlJs();
    const created = createDatabase(sqlJs);
    created.db.exec('CREATE TABLE filler (text TEXT NOT NULL)');
    const bytes = exportSnapshot(created.db, seq, created.databaseId);
    created.db.close();
    return { sqlJs, ...openSnapshotImage(sqlJs, imageOf(bytes)) };
  }
  const fill = (db: SqlJsDatabase, rows: number) =>
    db.run(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${rows}) INSERT INTO filler (text) SELECT hex(zeroblob(250)) FROM n`);
  const rowsIn = (sqlJs: Awaited<ReturnType<typeof loadSqlJs>>, bytes: Uint8Array) => {
    const copy = openSnapshotImage(sqlJs, imageOf(bytes));
    const rows = Number(copy.db.exec('SELECT count(*) FROM filler')[0].values[0][0]);
    copy.db.close();
    return { rows, appliedSeq: copy.appliedSeq };
  };

  test('writes the file from the array it lives in, without copying it', async () => {
    const { sqlJs, db, databaseId, openedIn } = await loaded(3);
    fill(db, 30);
    // Sequence numbers of every width SQLite stores an integer in.
    for (const seq of [4, 300, 70_000, 2 ** 25, 2 ** 33 + 1, 2 ** 50 + 3]) {
      const bytes = exportSnapshot(db, seq, databaseId, openedIn);
      expect(bytes.buffer).toBe(openedIn!.deref()!.buffer);
      expect(rowsIn(sqlJs, bytes)).toEqual({ rows: 30, appliedSeq: seq });
    }
    db.close();
  });

  test('copies the file once it outgrew that array, and writes what the database holds', async () => {
    const { sqlJs, db, databaseId, openedIn } = await loaded(3);
    const array = openedIn!.deref()!;
    fill(db, 400);
    const bytes = exportSnapshot(db, 4, databaseId, openedIn);
    expect(bytes.buffer).not.toBe(array.buffer);
    expect(rowsIn(sqlJs, bytes)).toEqual({ rows: 400, appliedSeq: 4 });
    db.close();
  });

  test('writes what the database holds after a rollback of a transaction that grew it', async () => {
    const { sqlJs, db, databaseId, openedIn } = await loaded(3);
    db.exec('BEGIN');
    fill(db, 60);
    db.exec('ROLLBACK');
    fill(db, 5);
    expect(rowsIn(sqlJs, exportSnapshot(db, 4, databaseId, openedIn))).toEqual({ rows: 5, appliedSeq: 4 });
    db.close();
  });

  test('never writes an array that sql.js let go of, even one of the same size', async () => {
    const { sqlJs, db, databaseId, openedIn } = await loaded(3);
    // What a replaced array holds: the file as it stood when sql.js moved it elsewhere.
    const left = openedIn!.deref()!.slice();
    fill(db, 5);
    const bytes = exportSnapshot(db, 4, databaseId, new WeakRef(left));
    expect(bytes.buffer).not.toBe(left.buffer);
    expect(rowsIn(sqlJs, bytes)).toEqual({ rows: 5, appliedSeq: 4 });
    db.close();
  });
});
