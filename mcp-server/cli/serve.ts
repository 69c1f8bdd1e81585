import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { SettingError, startServer } from '../main.js';
import type { CliDeps } from './context.js';
import { CliExit, EXIT } from './exit.js';

/**
 * V8 settings for a long-lived server that answers small requests and idles in between.
 * Each was measured on the 10k-issue benchmark; together they took one agent's server
 * from a peak of ~150 MB to ~105 MB over 1,500 work cycles, with no loss of speed.
 * - The young generation keeps its starting size: under a burst of calls V8 grows it (up
 *   to 16 MB per semi-space) and keeps it.
 * - `--optimize-for-size` collects the old generation sooner: otherwise the garbage of
 *   tool calls grows the heap by ~25 MB before a full collection.
 * - No Liftoff: sql.js's WebAssembly is compiled once, by the optimizing compiler, when
 *   the store starts SQLite (before any database is loaded, see `loadSqlJs`). With the
 *   baseline compiler first, V8 recompiles SQLite's hot functions in the background a
 *   few seconds into the work, and that compiler's ~20 MB come on top of the database.
 *   The price is ~400 ms of compiling when the store first opens, 200 ms after the
 *   handshake: a tool call sent at once waits for it (p50 0.65 s instead of 0.25 s).
 * These are V8 flags read as it goes, so setting them here works; a command-line flag
 * would not do, since clients launch `node dist/cli.js serve` or the `baton` bin.
 */
function tuneForALongLivedServer(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--optimize-for-size');
  setFlagsFromString('--no-liftoff');
}

/** `baton serve`: the stdio MCP server of one session (what client configurations launch). */
export function registerServeCommand(program: Command, deps: CliDeps): void {
  program
    .command('serve')
    .summary('start the stdio MCP server (what agents launch)')
    .description('start the stdio MCP server of one session; it stops when stdin closes, or on SIGINT or SIGTERM')
    .option('--db <path>', 'database file (default: <git common dir>/baton/baton.db; BATON_DB)')
    .action(async (options: { db?: string }) => {
      tuneForALongLivedServer();
      try {
        const running = await startServer({ db: options.db, cwd: deps.cwd, env: deps.env });
        await running.stopped;
      } catch (error) {
        if (!(error instanceof SettingError)) throw error;
        // One line naming the setting, exit 2 (PROTOCOL.md section 7).
        deps.stderr.write(`baton serve: ${error.message}\n`);
        throw new CliExit(EXIT.usage);
      }
    });
}
