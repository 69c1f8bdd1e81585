import type { Command } from 'commander';
import { SettingError, startServer } from '../main.js';
import type { CliDeps } from './context.js';
import { CliExit, EXIT } from './exit.js';
import { tuneForALongLivedProcess } from './long-lived.js';

/** `baton serve`: the stdio MCP server of one session (what client configurations launch). */
export function registerServeCommand(program: Command, deps: CliDeps): void {
  program
    .command('serve')
    .summary('start the stdio MCP server (what agents launch)')
    .description('start the stdio MCP server of one session; it stops when stdin closes, or on SIGINT or SIGTERM')
    .option('--db <path>', 'database file (default: <git common dir>/baton/baton.db; BATON_DB)')
    .action(async (options: { db?: string }) => {
      // The store opens shortly after the handshake; without Liftoff a tool call sent at once
      // waits longer for SQLite's compile, the price of a server's lower memory (long-lived.ts).
      tuneForALongLivedProcess();
      try {
        const running = await startServer({ db: options.db, cwd: deps.cwd, env: deps.env });
        await running.stopped;
      } catch (error) {
        if (!(error instanceof SettingError)) throw error;
        // One line naming the setting, exit 2 (docs/protocol.md section 7).
        deps.stderr.write(`baton serve: ${error.message}\n`);
        throw new CliExit(EXIT.usage);
      }
    });
}
