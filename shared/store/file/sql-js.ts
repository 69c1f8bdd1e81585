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
  return initSqlJs({ wasmBinary });
}
