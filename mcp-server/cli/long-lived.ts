import { setFlagsFromString } from 'node:v8';

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
 *   The price is ~400 ms of compiling when the store first opens, which is why one-shot
 *   commands keep V8's defaults.
 * These are V8 flags read as it goes, so setting them before the store opens works; a
 * command-line flag would not do, since clients launch `node dist/cli.js serve` or the
 * `baton` bin.
 */
export function tuneForALongLivedProcess(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--no-liftoff');
}
