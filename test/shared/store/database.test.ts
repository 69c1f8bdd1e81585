import { describe, expect, test } from 'vitest';
import { createDatabase, exportSnapshot, openSnapshotBytes } from '../../../shared/store/file/database.js';
import { loadSqlJs, type SqlJsDatabase } from '../../../shared/store/file/sql-js.js';

function settings(db: SqlJsDatabase): Record<string, unknown> {
  const read = (name: string) => db.exec(`PRAGMA ${name}`)[0]?.values[0]?.[0];
  return { foreignKeys: read('foreign_keys'), journal: read('journal_mode'), locking: read('locking_mode'), synchronous: read('synchronous') };
}

const EXPECTED = { foreignKeys: 1, journal: 'memory', locking: 'exclusive', synchronous: 0 };

describe('the in-memory copy', () => {
  test('is opened with its connection settings, and keeps them across a snapshot export', async () => {
    const sqlJs = await loadSqlJs();
    const created = createDatabase(sqlJs);
    expect(settings(created.db)).toEqual(EXPECTED);
    const bytes = exportSnapshot(created.db, 7, created.databaseId);
    expect(settings(created.db)).toEqual(EXPECTED);
    // The database stays writable after an export.
    created.db.exec("INSERT INTO meta (name, value) VALUES ('after-export', 'yes')");
    const reopened = openSnapshotBytes(sqlJs, bytes);
    expect(settings(reopened.db)).toEqual(EXPECTED);
    expect(reopened.appliedSeq).toBe(7);
    expect(reopened.databaseId).toBe(created.databaseId);
    created.db.close();
    reopened.db.close();
  });
});
