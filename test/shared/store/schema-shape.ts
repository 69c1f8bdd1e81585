import type pg from 'pg';
import type { SqlJsDatabase } from '../../../shared/store/file/sql-js.js';

/**
 * A schema as both stores must agree on it, whichever database it was read from: per
 * table, its columns (type as the rules read it), primary key and indexes. An index
 * that a UNIQUE constraint makes has a name each database picks itself, so it is keyed
 * by what it holds, `unique(a, b)`; a created index by its name.
 */
export type SchemaShape = Record<string, TableShape>;

export interface TableShape {
  columns: Record<string, { type: 'integer' | 'text'; notNull: boolean; default: string | null }>;
  primaryKey: string[];
  indexes: Record<string, { columns: string[]; unique: boolean; where: string | null }>;
}

/** SQLite's and PostgreSQL's names of the two kinds of value the rules store. */
function typeClass(declared: string): 'integer' | 'text' {
  const type = declared.toLowerCase();
  if (['integer', 'bigint', 'int', 'smallint'].includes(type)) return 'integer';
  if (type === 'text') return 'text';
  throw new Error(`a column type neither store maps: ${declared}`);
}

/** A default or a predicate in one spelling: PostgreSQL's casts and ANY(ARRAY[...]) as SQLite writes them. */
export function normalizeSql(text: string | null): string | null {
  if (text === null) return null;
  let sql = text
    .replace(/::[a-z]+( [a-z]+)*/gi, '')
    .replace(/= ANY \(ARRAY\[([^\]]*)\]\)/gi, 'IN ($1)')
    .replace(/\s+/g, ' ')
    // PostgreSQL puts each term of a conjunction in parentheses: `(a IS NULL) AND (b = 1)`.
    .replace(/\(([^(),]*(?:\bIS\b|[=<>])[^(),]*)\)/gi, '$1')
    .trim();
  while (/^\(.*\)$/.test(sql) && balanced(sql.slice(1, -1))) sql = sql.slice(1, -1).trim();
  return sql.replace(/\( /g, '(').replace(/ \)/g, ')');
}

function balanced(text: string): boolean {
  let depth = 0;
  for (const c of text) {
    depth += c === '(' ? 1 : c === ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  return depth === 0;
}

function rows(db: SqlJsDatabase, sql: string): Record<string, unknown>[] {
  const [result] = db.exec(sql);
  if (!result) return [];
  return result.values.map((values) => Object.fromEntries(result.columns.map((c, i) => [c, values[i]])));
}

/** The shape of a SQLite database, read from sqlite_master and its pragmas. */
export function sqliteShape(db: SqlJsDatabase, leaveOut: ReadonlySet<string>): SchemaShape {
  const shape: SchemaShape = {};
  const tables = rows(db, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name`);
  for (const { name } of tables) {
    const table = String(name);
    if (leaveOut.has(table)) continue;
    const info = rows(db, `PRAGMA table_info('${table}')`);
    const columns: TableShape['columns'] = {};
    for (const c of info) {
      columns[String(c.name)] = { type: typeClass(String(c.type)), notNull: Number(c.notnull) === 1 || Number(c.pk) > 0, default: normalizeSql(c.dflt_value as string | null) };
    }
    const primaryKey = info.filter((c) => Number(c.pk) > 0).sort((a, b) => Number(a.pk) - Number(b.pk)).map((c) => String(c.name));
    const indexes: TableShape['indexes'] = {};
    for (const index of rows(db, `PRAGMA index_list('${table}')`)) {
      if (index.origin === 'pk') continue;
      const indexName = String(index.name);
      const indexColumns = rows(db, `PRAGMA index_info('${indexName}')`).map((c) => String(c.name));
      const sql = rows(db, `SELECT sql FROM sqlite_master WHERE type = 'index' AND name = '${indexName}'`)[0]?.sql as string | null | undefined;
      const where = Number(index.partial) === 1 && sql ? normalizeSql(sql.slice(sql.search(/\bWHERE\b/i) + 5)) : null;
      const key = index.origin === 'u' ? `unique(${indexColumns.join(', ')})` : indexName;
      indexes[key] = { columns: indexColumns, unique: Number(index.unique) === 1, where };
    }
    shape[table] = { columns, primaryKey, indexes };
  }
  return shape;
}

/** The shape of a PostgreSQL database's public schema, read from information_schema and the catalogs. */
export async function postgresShape(client: pg.ClientBase, leaveOut: ReadonlySet<string>): Promise<SchemaShape> {
  const shape: SchemaShape = {};
  const columns = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string; column_default: string | null }>(
    `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
     WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`,
  );
  for (const c of columns.rows) {
    if (leaveOut.has(c.table_name)) continue;
    shape[c.table_name] ??= { columns: {}, primaryKey: [], indexes: {} };
    shape[c.table_name]!.columns[c.column_name] = { type: typeClass(c.data_type), notNull: c.is_nullable === 'NO', default: normalizeSql(c.column_default) };
  }
  // Every index with its columns in order, whether a constraint made it, and its predicate.
  const indexes = await client.query<{ table_name: string; index_name: string; columns: string[]; unique: boolean; primary: boolean; constraint: string | null; predicate: string | null }>(
    `SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique AS unique, x.indisprimary AS primary,
            (SELECT c.contype::text FROM pg_constraint c WHERE c.conindid = x.indexrelid LIMIT 1) AS constraint,
            pg_get_expr(x.indpred, x.indrelid) AS predicate,
            ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n)
                  JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.attnum ORDER BY k.n)::text[] AS columns
     FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
     JOIN pg_namespace s ON s.oid = t.relnamespace WHERE s.nspname = 'public'`,
  );
  for (const index of indexes.rows) {
    const table = shape[index.table_name];
    if (!table) continue;
    if (index.primary) {
      table.primaryKey = index.columns;
      continue;
    }
    const key = index.constraint === 'u' ? `unique(${index.columns.join(', ')})` : index.index_name;
    table.indexes[key] = { columns: index.columns, unique: index.unique, where: normalizeSql(index.predicate) };
  }
  return shape;
}
