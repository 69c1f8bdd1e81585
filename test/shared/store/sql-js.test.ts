import { expect, test } from 'vitest';
import { aroundSqliteCompile, loadSqlJs } from '../../../shared/store/file/sql-js.js';

// sql.js is loaded once per process, so this file loads it nowhere else.
test('a hook around the compile holds for the compile alone, and SQLite then works', async () => {
  const events: string[] = [];
  aroundSqliteCompile(() => {
    events.push('enter');
    return () => events.push('leave');
  });
  const loading = loadSqlJs();
  expect(events).toEqual(['enter']);
  const sqlJs = await loading;
  expect(events).toEqual(['enter', 'leave']);

  await loadSqlJs();
  expect(events).toEqual(['enter', 'leave']);
  const db = new sqlJs.Database();
  try {
    expect(db.exec('SELECT 6 * 7')[0].values).toEqual([[42]]);
  } finally {
    db.close();
  }
});
