import type { Command } from 'commander';
import { keepReasons } from '../../shared/worktrees/keep-reasons.js';
import { surveyWorktrees } from '../../shared/worktrees/survey.js';
import { realPath } from '../../shared/worktrees/worktree-list.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { worktreesTable } from './worktree-table.js';

/** `baton worktree ls`: every worktree with its branch, issue, lease, sessions and git state. */
export function registerWorktreeLsCommand(worktree: Command, deps: CliDeps): void {
  withCommonOptions(
    worktree
      .command('ls')
      .summary('list worktrees with their leases and state')
      .description('list every worktree: branch, issue, lease (holder, time left, idle), live Baton sessions, dirty or clean, merged or not'),
  ).action(
    action<CommonOptions, []>(deps, async (ctx) => {
      const { baton } = await ctx.open();
      const survey = unwrap(await surveyWorktrees(deps.cwd, baton));
      const context = { defaultBranch: survey.defaultBranch?.name ?? null, here: realPath(deps.cwd) };
      const worktrees = survey.worktrees.map((view) => ({ ...view, keep: keepReasons(view, context) }));
      if (ctx.json) return ctx.printJson({ defaultBranch: context.defaultBranch, worktrees });
      ctx.print(worktreesTable(ctx.out, worktrees, survey.repo, (await ctx.storeClock())(), ctx.width));
    }),
  );
}
