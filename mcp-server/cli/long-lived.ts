import { setFlagsFromString } from 'node:v8';
import { aroundSqliteCompile } from '../../shared/store/file-access.js';

/**
 * V8 settings for a process that stays up beside the agents and does small pieces of
 * work with pauses in between: `baton serve`, the watchdog and `claims --watch`.
 * Together they keep such a process's memory well below what V8's defaults let it reach,
 * with no loss of speed (bench/JOURNAL.md has the measurements).
 * - The young generation keeps its starting size: under a burst of work V8 grows it and
 *   keeps it.
 * - `--optimize-for-size` collects the old generation sooner: otherwise the garbage of
 *   tool calls grows the heap a long way before a full collection.
 * - No Liftoff: sql.js's WebAssembly is compiled once, by the optimizing compiler, when
 *   the store starts SQLite (before any database is loaded, see `loadSqlJs`). With the
 *   baseline compiler first, V8 recompiles SQLite's hot functions in the background a
 *   few seconds into the work, and that compiler's memory comes on top of the database.
 *   The price is a longer compile when the store first opens, which is why one-shot
 *   commands keep V8's defaults. SQLite compiles with the mid-tier register allocator
 *   (below).
 * - Sparkplug from the first call: a server answers a call every few seconds, too seldom
 *   for V8 to leave its interpreter for most of the code a tool call runs (the SDK's
 *   checks above all). Sparkplug's code is a plain translation of the bytecode, made
 *   as fast as it is read, and costs little memory; hot code still goes on to TurboFan.
 * These are V8 flags read as it goes, so setting them before the store opens works; a
 * command-line flag would not do, since clients launch `node dist/cli.js serve` or the
 * `baton` bin.
 */
export function tuneForALongLivedProcess(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--no-liftoff');
  // Sparkplug is built for these; elsewhere V8 may refuse the flag out loud, on the MCP stream.
  if (process.arch === 'x64' || process.arch === 'arm64') setFlagsFromString('--always-sparkplug');
  if (hasMidTierRegisterAllocator()) aroundSqliteCompile(withMidTierRegisterAllocator);
}

/**
 * SQLite's WebAssembly is compiled with TurboFan's mid-tier register allocator, which V8
 * otherwise keeps for huge functions. The usual allocator needs much more memory for a
 * moment on SQLite's interpreter, one huge function, and takes longer: that moment was a
 * server's highest memory, and the first tool call waits for it. SQLite runs as fast
 * with either allocator. JavaScript keeps the usual allocator, since the flag holds only
 * while SQLite compiles.
 */
function withMidTierRegisterAllocator(): () => void {
  setFlagsFromString('--turbo-force-mid-tier-regalloc');
  return () => setFlagsFromString('--no-turbo-force-mid-tier-regalloc');
}

/**
 * The allocator is gone from Node 22's V8 (12.4); Node 21's (11.8) still has it. V8 does
 * not ignore an unknown flag: it prints an error to standard output, which would corrupt
 * the MCP stream.
 */
function hasMidTierRegisterAllocator(): boolean {
  return Number(process.versions.v8.split('.')[0]) < 12;
}
