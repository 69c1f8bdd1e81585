import { CommanderError } from 'commander';
import { realpathSync } from 'node:fs';
import packageJson from '../package.json';
import type { CliDeps } from './cli/context.js';
import { CliExit, EXIT, statusForCommanderCode } from './cli/exit.js';
import { buildProgram } from './cli/program.js';

/**
 * The `baton` bin: the composition root of the CLI, called by the launcher
 * (mcp-server/launch.ts) once this bundle is loaded. Exit status 0 on success, 1 on a
 * refused operation (its error code printed), 2 on bad usage (docs/protocol.md section 7).
 */
export function main(): void {
  const deps: CliDeps = {
    env: process.env,
    cwd: process.cwd(),
    stdout: process.stdout,
    stderr: process.stderr,
    cliPath: realpathSync(process.argv[1] ?? __filename),
  };

  buildProgram(deps, packageJson.version)
    .parseAsync(process.argv)
    .catch((error: unknown) => {
      if (error instanceof CliExit) {
        if (error.error) deps.stderr.write(`error ${error.error.code}: ${error.error.message}\n`);
        process.exitCode = error.status;
      } else if (error instanceof CommanderError) {
        process.exitCode = statusForCommanderCode(error.code);
      } else {
        process.stderr.write(`baton: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
        process.exitCode = EXIT.refused;
      }
    });
}
