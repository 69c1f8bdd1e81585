import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import initSqlJs from 'sql.js';

/** The sql.js module: `Database` and `Statement` constructors over one WebAssembly instance. */
export type SqlJs = initSqlJs.SqlJsStatic;
/** One in-memory SQLite database of sql.js. */
export type SqlJsDatabase = initSqlJs.Database;
/** A prepared statement of sql.js. */
export type SqlJsStatement = initSqlJs.Statement;

const WASM_FILE = 'sql-wasm.wasm';

/**
 * Where `sql-wasm.wasm` may be: beside the running bundle (dist/cli.js and
 * dist/extension.js have it copied next to them), then inside the installed sql.js
 * package (tests and tools run the TypeScript sources).
 */
export function wasmCandidates(): string[] {
  const candidates: string[] = [];
  // esbuild's cjs output and vitest both define __dirname; a plain ESM runtime does not.
  if (typeof __dirname === 'string') candidates.push(join(__dirname, WASM_FILE));
  try {
    candidates.push(join(dirname(require.resolve('sql.js')), WASM_FILE));
  } catch {
    // Inside the bundle there is no node_modules to resolve from; the first candidate serves.
  }
  return candidates;
}

// One WebAssembly instance serves every store of the process: compiling it costs about
// 100 ms and its memory is the bulk of a store's footprint. This is the one piece of
// module state in the store, on purpose.
let loading: Promise<SqlJs> | undefined;

/**
 * Initialises sql.js once per process. The wasm bytes are read here and handed over,
 * so a missing file fails with the places searched rather than a fetch error.
 */
export function loadSqlJs(): Promise<SqlJs> {
  if (!loading) {
    const attempt = initialise();
    loading = attempt;
    // A failed start (say the wasm file is missing) must not stick for the life of the process.
    attempt.catch(() => {
      if (loading === attempt) loading = undefined;
    });
  }
  return loading;
}

async function initialise(): Promise<SqlJs> {
  const candidates = wasmCandidates();
  const found = candidates.find((candidate) => existsSync(candidate));
  if (!found) throw new Error(`cannot find ${WASM_FILE} (looked in ${candidates.join(', ') || 'no place'})`);
  const bytes = readFileSync(found);
  const wasmBinary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  const sqlJs = await initSqlJs({ wasmBinary });
  compileEngine(sqlJs);
  return sqlJs;
}

/**
 * Runs a few statements on a throwaway database so that V8 compiles SQLite's engine now,
 * before any store loads its database: compiling SQLite's virtual machine takes tens of
 * MB for a moment (with Liftoff off, as `baton serve` runs, ~20 MB and 400 ms), and done
 * later it would add to the database's own copies. The first real query would pay the
 * same compilation, so this costs nothing extra.
 */
function compileEngine(sqlJs: SqlJs): void {
  const db = new sqlJs.Database();
  try {
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
      CREATE INDEX t_name ON t (name);
      INSERT INTO t (name) VALUES ('b'), ('a');
      UPDATE t SET name = 'c' WHERE id = 1;
      SELECT name, count(*) FROM t WHERE id > 0 GROUP BY name ORDER BY name;
      DELETE FROM t WHERE id = 2`);
  } finally {
    db.close();
  }
}
