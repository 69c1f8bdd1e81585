import { setFlagsFromString } from 'node:v8';
import { aroundSqliteCompile } from '../../shared/store/file-access.js';

/**
 * V8 settings for a process that stays up beside the agents and does small pieces of
 * work with pauses in between: `baton serve`, the watchdog and `claims --watch`. Each
 * was measured at 10k issues; together they took one agent's server from a peak of
 * ~150 MB to ~105 MB over 1,500 work cycles with no loss of speed, and a watchdog or a
 * `claims --watch` following a busy store from 114–146 MB to 92–98 MB.
 * - The young generation keeps its starting size: under a burst of work V8 grows it (up
 *   to 16 MB per semi-space) and keeps it.
 * - `--optimize-for-size` collects the old generation sooner: otherwise the garbage of
 *   tool calls grows the heap by ~25 MB before a full collection.
 * - No Liftoff: sql.js's WebAssembly is compiled once, by the optimizing compiler, when
 *   the store starts SQLite (before any database is loaded, see `loadSqlJs`). With the
 *   baseline compiler first, V8 recompiles SQLite's hot functions in the background a
 *   few seconds into the work, and that compiler's ~20 MB come on top of the database.
 *   The price is ~0.5 s of compiling when the store first opens, which is why one-shot
 *   commands keep V8's defaults. SQLite compiles with the mid-tier register allocator
 *   (below).
 * These are V8 flags read as it goes, so setting them before the store opens works; a
 * command-line flag would not do, since clients launch `node dist/cli.js serve` or the
 * `baton` bin.
 */
export function tuneForALongLivedProcess(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--no-liftoff');
  if (hasMidTierRegisterAllocator()) aroundSqliteCompile(withMidTierRegisterAllocator);
}

/**
 * SQLite's WebAssembly is compiled with TurboFan's mid-tier register allocator, which V8
 * otherwise keeps for huge functions. The usual allocator needed ~17 MB more for a moment
 * on SQLite's interpreter, one huge function: compiling alone peaked at 78 MB against 61,
 * and took 705–1,116 ms against 443–629 (four runs each, a slow hour). That moment was
 * a server's highest memory at 10k issues with one agent (97–99 MB, against 89–90 with
 * this allocator), and the first tool call, which waits for the store, came 0.25 s
 * sooner. SQLite ran as fast: a statement loop over 10k issues took 478–755 ms with
 * either allocator (six alternating runs). JavaScript keeps the usual allocator, since
 * the flag holds only while SQLite compiles.
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
