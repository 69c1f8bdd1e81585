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
 * Where `sql-wasm.wasm` may be: beside the running bundle (dist/baton.js and
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

/**
 * The most room an image leaves for its database to grow into: a very large database
 * still fits under the engine's limit on one array's length.
 */
const MAX_ROOM_BYTES = 256 * 1024 * 1024;

/**
 * A database file's bytes at the start of an array allocated for them alone, twice their
 * size (at most `MAX_ROOM_BYTES` more). sql.js keeps each database's file in one
 * JavaScript array and, whenever SQLite extends the file past that array's end, copies
 * the file into an array 12.5% larger; the old array stays until a full garbage
 * collection, so each growth leaves the process holding the database twice for a while.
 * A file opened from an image (`openImage`) starts in the image's array: no copy when it
 * opens, and none until the room is used up. The room costs address space only,
 * since pages the file has not reached are never touched, and it lowers a server's
 * memory peak: the database is no longer held twice each time it grows.
 */
export class DatabaseImage {
  readonly array: Uint8Array<ArrayBuffer>;

  constructor(readonly length: number) {
    this.array = new Uint8Array(length + Math.min(length, MAX_ROOM_BYTES));
  }

  /** The file's bytes: a view, not a copy. */
  get bytes(): Uint8Array<ArrayBuffer> {
    return this.array.subarray(0, this.length);
  }
}

/**
 * Opens an image as a database. The image's array becomes the database's file, so
 * nothing else may write to it afterwards (a snapshot may be written out of it: see
 * file-in-place.ts).
 */
export function openImage(sqlJs: SqlJs, image: DatabaseImage): SqlJsDatabase {
  // sql.js creates the file with `data.slice(0, length)` (a first write into an empty file
  // of its in-memory file system); answering with the whole array hands it over instead.
  const data = image.bytes;
  data.slice = () => image.array;
  return new sqlJs.Database(data);
}

// One WebAssembly instance serves every store of the process: compiling it takes time
// and its memory is the bulk of a store's footprint. This and the hook below are
// the store's only module state, on purpose.
let loading: Promise<SqlJs> | undefined;
let aroundCompile: (() => () => void) | undefined;

/**
 * Has `enter` run just before this process compiles SQLite's WebAssembly, and the
 * function it returns once the compile is done: a process-wide setting that should hold
 * for that compile alone (`tuneForALongLivedProcess` narrows a V8 flag to it).
 */
export function aroundSqliteCompile(enter: () => () => void): void {
  aroundCompile = enter;
}

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
  const leave = aroundCompile?.();
  try {
    const sqlJs = await initSqlJs({ wasmBinary });
    compileEngine(sqlJs);
    return sqlJs;
  } finally {
    leave?.();
  }
}

/**
 * Runs a few statements on a throwaway database so that V8 compiles SQLite's engine now,
 * before any store loads its database: compiling SQLite's virtual machine takes memory
 * for a moment (longer with Liftoff off, as `baton serve` runs; see long-lived.ts), and
 * done later it would add to the database's own copies. The first real query would pay
 * the same compilation, so this costs nothing extra.
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
