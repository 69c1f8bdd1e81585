import type { Command } from 'commander';
import type { CliDeps } from './context.js';
import { registerWorktreeLsCommand } from './worktree-ls.js';
import { registerWorktreeNewCommand } from './worktree-new.js';
import { registerWorktreeTidyCommand } from './worktree-tidy.js';

/** `baton worktree new|ls|tidy`: one worktree per agent, made in one command and tidied safely. */
export function registerWorktreeCommand(program: Command, deps: CliDeps): void {
  const worktree = program
    .command('worktree')
    .summary('make, list and tidy worktrees for agents')
    .description('one git worktree per agent: make one ready for an agent, list them with their leases, remove the finished ones safely');
  registerWorktreeNewCommand(worktree, deps);
  registerWorktreeLsCommand(worktree, deps);
  registerWorktreeTidyCommand(worktree, deps);
}
