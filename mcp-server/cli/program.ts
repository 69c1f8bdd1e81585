import { Command } from 'commander';
import { registerAddCommand } from './add.js';
import { registerBlockCommand } from './block.js';
import { registerCloseCommand } from './close.js';
import { registerCommentCommand } from './comment.js';
import { registerEditCommand } from './edit.js';
import { registerRelateCommand } from './relate.js';
import { registerReopenCommand } from './reopen.js';
import { registerUnblockCommand } from './unblock.js';
import { registerWhyCommand } from './why.js';
import { registerClaimsCommand } from './claims.js';
import type { CliDeps } from './context.js';
import { registerDoctorCommand } from './doctor.js';
import { registerGuardCommand } from './guard.js';
import { registerImportCommand } from './import.js';
import { registerHookCommand } from './hook.js';
import { registerInitCommand } from './init.js';
import { registerLsCommand } from './ls.js';
import { registerPruneCommand } from './prune.js';
import { registerReleaseCommand } from './release.js';
import { forTerminal } from './render.js';
import { registerServeCommand } from './serve.js';
import { registerShowCommand } from './show.js';
import { registerWatchdogCommand } from './watchdog.js';
import { registerWorktreeCommand } from './worktree.js';

/** The `baton` command line: every command of docs/protocol.md section 7, wired to `deps`. */
export function buildProgram(deps: CliDeps, version: string): Command {
  const program = new Command('baton')
    .description('Hands each issue to exactly one coding agent, with a claim token, a branch and a lease.')
    .version(version)
    // Set before the commands are added, so that every command inherits them: errors come
    // back to the entry point as exceptions (for exit status 2), output goes to `deps`.
    .exitOverride()
    .configureOutput({
      // An argument echoed in an error message could hold control characters too.
      writeOut: (text) => void deps.stdout.write(forTerminal(text)),
      writeErr: (text) => void deps.stderr.write(forTerminal(text)),
    })
    .showHelpAfterError('(run with --help for usage)');
  registerServeCommand(program, deps);
  registerInitCommand(program, deps);
  registerAddCommand(program, deps);
  registerImportCommand(program, deps);
  registerLsCommand(program, deps);
  registerShowCommand(program, deps);
  registerWhyCommand(program, deps);
  registerEditCommand(program, deps);
  registerCommentCommand(program, deps);
  registerBlockCommand(program, deps);
  registerUnblockCommand(program, deps);
  registerRelateCommand(program, deps);
  registerCloseCommand(program, deps);
  registerReopenCommand(program, deps);
  registerClaimsCommand(program, deps);
  registerReleaseCommand(program, deps);
  registerPruneCommand(program, deps);
  registerWatchdogCommand(program, deps);
  registerDoctorCommand(program, deps);
  registerWorktreeCommand(program, deps);
  registerGuardCommand(program, deps);
  registerHookCommand(program, deps);
  return program;
}
