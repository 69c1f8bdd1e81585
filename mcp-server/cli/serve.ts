import { setFlagsFromString } from 'node:v8';
import type { Command } from 'commander';
import { SettingError, startServer } from '../main.js';
import type { CliDeps } from './context.js';
import { CliExit, EXIT } from './exit.js';

/**
 * A server answers small requests and idles in between; under a burst of calls V8 grows
 * the young generation (up to 16 MB per semi-space) and keeps it: up to 20 MB more in
 * every agent's server at 10k issues. Not growing it costs a few more minor collections, with
 * no loss of throughput measured. Only the growth heuristic changes, which V8 reads each
 * time it considers growing; a command-line flag cannot do this, since clients launch
 * `node dist/cli.js serve` or the `baton` bin.
 */
function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** `baton serve`: the stdio MCP server of one session (what client configurations launch). */
export function registerServeCommand(program: Command, deps: CliDeps): void {
  program
    .command('serve')
    .summary('start the stdio MCP server (what agents launch)')
    .description('start the stdio MCP server of one session; it stops when stdin closes, or on SIGINT or SIGTERM')
    .option('--db <path>', 'database file (default: <git common dir>/baton/baton.db; BATON_DB)')
    .action(async (options: { db?: string }) => {
      keepYoungGenerationSmall();
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
