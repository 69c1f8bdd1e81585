import { Command } from 'commander';
import packageJson from '../package.json';
import { SettingError, startServer } from './main.js';

const program = new Command('baton')
  .description('Hands each issue to exactly one coding agent, with a claim token, a branch and a lease.')
  .version(packageJson.version);

program
  .command('serve')
  .description('Start the stdio MCP server (one session). Stops when stdin closes, or on SIGINT or SIGTERM.')
  .option('--db <path>', 'database file (default: <git common dir>/baton/baton.db; BATON_DB)')
  .action(async (options: { db?: string }) => {
    try {
      const running = await startServer({ db: options.db });
      await running.stopped;
    } catch (error) {
      if (!(error instanceof SettingError)) throw error;
      process.stderr.write(`baton serve: ${error.message}\n`);
      process.exitCode = 2;
    }
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`baton: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
