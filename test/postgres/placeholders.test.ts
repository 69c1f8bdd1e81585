import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../shared/store/postgres/location.js';
import { toNumbered } from '../../shared/store/postgres/placeholders.js';

describe('numbering ? placeholders for PostgreSQL', () => {
  const cases: [string, string, string, number][] = [
    ['numbers them in order', 'SELECT * FROM t WHERE a = ? AND b IN (?, ?)', 'SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)', 3],
    ['leaves a statement without any alone', 'SELECT 1', 'SELECT 1', 0],
    ['skips a ? inside a string literal', `SELECT '?', ? FROM t`, `SELECT '?', $1 FROM t`, 1],
    ['knows a doubled quote does not end a literal', `SELECT 'it''s ?', ?`, `SELECT 'it''s ?', $1`, 1],
    ['knows a backslash escapes a quote only in E strings', `SELECT E'\\'?', '\\', ?`, `SELECT E'\\'?', '\\', $1`, 1],
    ['skips a ? inside a quoted identifier', `SELECT "what?" FROM t WHERE x = ?`, `SELECT "what?" FROM t WHERE x = $1`, 1],
    ['skips a ? inside a line comment', 'SELECT ? -- why?\n, ?', 'SELECT $1 -- why?\n, $2', 2],
    ['skips a ? inside nested block comments', 'SELECT /* a /* b? */ c? */ ?', 'SELECT /* a /* b? */ c? */ $1', 1],
    ['skips a ? inside a dollar-quoted string', 'SELECT $tag$ ? $tag$, $$?$$, ?', 'SELECT $tag$ ? $tag$, $$?$$, $1', 1],
    ['reads LIKE patterns with an escape clause', `lower(t) LIKE ? ESCAPE '\\' OR b LIKE ? ESCAPE '\\'`, `lower(t) LIKE $1 ESCAPE '\\' OR b LIKE $2 ESCAPE '\\'`, 2],
  ];
  for (const [behaviour, sql, text, count] of cases) {
    it(behaviour, () => {
      expect(toNumbered(sql)).toEqual({ text, count });
    });
  }
});

describe('showing a connection URL', () => {
  it('replaces the password with ***', () => {
    expect(redactUrl('postgres://bob:s3cret@db.example:5432/baton')).toBe('postgres://bob:***@db.example:5432/baton');
  });
  it('replaces a password given as a parameter', () => {
    expect(redactUrl('postgres://bob@db.example/baton?password=s3cret&sslmode=require')).toBe(
      'postgres://bob@db.example/baton?password=***&sslmode=require',
    );
  });
  it('leaves a URL without a password as it is', () => {
    expect(redactUrl('postgres://bob@db.example:5432/baton')).toBe('postgres://bob@db.example:5432/baton');
  });
  it('shows only the scheme of a URL it cannot parse', () => {
    expect(redactUrl('postgres://bob:s3cret@[oops/baton')).toBe('postgres://(unparsable URL)');
  });
});
