import { writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadSqlJs } from '../../../shared/store/file/sql-js.js';
import { BATON_APPLICATION_ID, SQLITE_MIGRATIONS } from '../../../shared/store/sqlite-schema.js';
import { storeScratch } from './store-scratch.js';

const scratch = storeScratch('token-history', 'baton.db');

describe('the migration that gives tokens their lease history', () => {
  test("copies a live token's branch, worktree and start from its lease, and leaves ended tokens unknown", async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    // A database as the two migrations before this one left it, with a live lease and an ended token.
    for (const statement of [...SQLITE_MIGRATIONS[0], ...SQLITE_MIGRATIONS[1]]) db.run(statement);
    db.run(`PRAGMA application_id = ${BATON_APPLICATION_ID}`);
    db.run('PRAGMA user_version = 2');
    db.run(`INSERT INTO issues (id, number, key, title, status, priority, eff_priority, created_at, updated_at) VALUES (1, 1, 'BAT-1', 'x', 'doing', 2, 2, 0, 0)`);
    db.run(`INSERT INTO leases VALUES (1, 'live-hash', 'bob', 's2', 'worker', 'baton/bat-1-x', '/repo/wt-b', NULL, 2, 1, 500, 700, 9000)`);
    db.run(`INSERT INTO tokens VALUES ('old-hash', 1, 1, 'alice', 's1', 'reclaimed', 400)`);
    db.run(`INSERT INTO tokens VALUES ('live-hash', 1, 2, 'bob', 's2', 'live', NULL)`);
    writeFileSync(scratch.path, db.export());
    db.close();

    const store = await scratch.open();
    expect((await store.info()).schemaVersion).toBe(SQLITE_MIGRATIONS.length);
    const tokens = await store.read((tx) => tx.all('SELECT hash, branch, worktree, started_at FROM tokens ORDER BY hash'));
    expect(tokens).toEqual([
      { hash: 'live-hash', branch: 'baton/bat-1-x', worktree: '/repo/wt-b', started_at: 500 },
      { hash: 'old-hash', branch: null, worktree: null, started_at: null },
    ]);
  });
});
