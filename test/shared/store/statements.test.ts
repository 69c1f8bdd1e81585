import { describe, expect, test } from 'vitest';
import { loadSqlJs } from '../../../shared/store/file/sql-js.js';
import { Statements } from '../../../shared/store/file/statements.js';

async function statementsOn(setup: string, capacity?: number): Promise<Statements> {
  const sqlJs = await loadSqlJs();
  const statements = new Statements(new sqlJs.Database(), capacity);
  statements.exec(setup);
  return statements;
}

describe('prepared statements', () => {
  test('rows are objects keyed by column name, the same on every run of a cached statement', async () => {
    const s = await statementsOn("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, size REAL); INSERT INTO t VALUES (1, 'a', 1.5), (2, NULL, 2)");
    const sql = 'SELECT id, name, size AS bytes FROM t ORDER BY id';
    expect(s.all(sql, [])).toEqual([
      { id: 1, name: 'a', bytes: 1.5 },
      { id: 2, name: null, bytes: 2 },
    ]);
    expect(s.all(sql, [])).toEqual(s.all(sql, []));
    expect(s.get('SELECT name FROM t WHERE id = ?', [1])).toEqual({ name: 'a' });
    expect(s.get('SELECT name FROM t WHERE id = ?', [3])).toBeUndefined();
  });

  test('a schema change is seen by a statement prepared before it', async () => {
    const s = await statementsOn("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO t VALUES (1, 'a')");
    expect(s.get('SELECT * FROM t', [])).toEqual({ id: 1, name: 'a' });
    // Same number of columns, another name: only the schema change tells.
    s.run('ALTER TABLE t RENAME COLUMN name TO title', []);
    expect(s.get('SELECT * FROM t', [])).toEqual({ id: 1, title: 'a' });
    s.exec('ALTER TABLE t ADD COLUMN size INTEGER DEFAULT 7');
    expect(s.get('SELECT * FROM t', [])).toEqual({ id: 1, title: 'a', size: 7 });
  });

  test('statements beyond the capacity are freed and prepared again when needed', async () => {
    const s = await statementsOn('CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1), (2), (3)', 2);
    const texts = ['SELECT n FROM t WHERE n = ?', 'SELECT n AS m FROM t WHERE n = ?', 'SELECT n AS k FROM t WHERE n = ?'];
    for (let round = 0; round < 3; round++) {
      expect(texts.map((sql, i) => s.get(sql, [i + 1]))).toEqual([{ n: 1 }, { m: 2 }, { k: 3 }]);
    }
  });
});
