import type { Command } from 'commander';
import { createWorktree } from '../../shared/worktrees/create.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';

interface NewOptions extends CommonOptions {
  issue?: string;
  base?: string;
}

/** `baton worktree new [NAME]`: a linked worktree on a new branch, ready for an agent. */
export function registerWorktreeNewCommand(worktree: Command, deps: CliDeps): void {
  withCommonOptions(
    worktree
      .command('new')
      .summary('make a worktree for an agent')
      .description(
        'make a linked worktree under the worktree root (.baton.json "worktreeRoot", default ../<repo>-worktrees) on a new branch, ' +
          "with the agent configuration baton init wrote; prints its path (--json: { path, branch, base, copied })",
      )
      .argument('[name]', 'its folder name (default: the issue key, or agent-<n>); also the branch without --issue')
      .option('--issue <key>', "work on this issue: the worktree is on the issue's branch", parseKey)
      .option('--base <ref>', 'start the new branch from this commit or branch (default: the default branch)'),
  ).action(
    action<NewOptions, [string | undefined]>(deps, async (ctx, opts, name) => {
      const { baton, config } = await ctx.open();
      const issue = opts.issue ? unwrap(await baton.getIssue({ key: opts.issue })).issue : undefined;
      const made = unwrap(await createWorktree({ cwd: deps.cwd, name, issue, base: opts.base, root: config.worktreeRoot }));
      if (ctx.json) return ctx.printJson(made);
      // The path alone on stdout, for `cd "$(baton worktree new)"`; the rest is for people.
      ctx.print(made.path);
      ctx.log(`${ctx.err.dim('branch')} ${made.branch}${made.base ? ctx.err.dim(` (new, from ${made.base})`) : ctx.err.dim(' (existing)')}`);
      if (made.copied.length) ctx.log(`${ctx.err.dim('copied')} ${made.copied.join(', ')}`);
    }),
  );
}
