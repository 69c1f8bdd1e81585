import pg from 'pg';

// Type OIDs of the PostgreSQL catalogue (pg_type), stable across versions.
const BOOL = 16;
const INT8 = 20;
const NUMERIC = 1700;

/**
 * How this store's connections turn column text into JavaScript values, so a row reads
 * as it does from SQLite: every integer a number, every truth value 1 or 0.
 *
 * - bigint (ids, times in ms, `count(*)`) becomes a number rather than pg's default
 *   string: the values Baton keeps stay far below 2^53.
 * - numeric (`sum()` of integers, `avg()`) becomes a number, as SQLite gives.
 * - boolean (`a = b`, `EXISTS (...)` in a select list) becomes 1 or 0, as SQLite has no booleans.
 *
 * Handed to each pool rather than set on pg's global table, so other users of `pg` in
 * the same process keep their own parsing.
 */
export const BATON_TYPE_PARSERS: pg.CustomTypesConfig = {
  getTypeParser: (oid, format) => {
    if (format === undefined || format === 'text') {
      if (oid === INT8 || oid === NUMERIC) return (text: string) => Number(text);
      if (oid === BOOL) return (text: string) => (text === 't' ? 1 : 0);
    }
    return pg.types.getTypeParser(oid, format);
  },
};
