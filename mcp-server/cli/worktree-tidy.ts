import type { Command } from 'commander';
import { applyTidy, planOutcome, planTidy, type TidyOutcome } from '../../shared/worktrees/tidy.js';
import { realPath } from '../../shared/worktrees/worktree-list.js';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';

interface TidyOptions extends CommonOptions {
  dryRun?: boolean;
}

/** `baton worktree tidy`: removes the worktrees that are safe to remove, and says why it keeps each other one. */
export function registerWorktreeTidyCommand(worktree: Command, deps: CliDeps): void {
  withCommonOptions(
    worktree
      .command('tidy')
      .summary('remove finished worktrees, keep everything else')
      .description(
        'remove each worktree with no live lease or Baton session, nothing uncommitted or untracked, and its branch merged ' +
          '(or a done issue\'s branch pushed to its upstream), not main, not locked; say why each other one is kept; ' +
          'delete a removed worktree\'s branch only when merged; prune worktrees whose folder is gone',
      )
      .option('-n, --dry-run', 'say what it would do and change nothing'),
  ).action(
    action<TidyOptions, []>(deps, async (ctx, opts) => {
      const { baton } = await ctx.open();
      const here = realPath(deps.cwd);
      const plan = unwrap(await planTidy(deps.cwd, baton, here));
      const outcome = opts.dryRun ? planOutcome(plan) : unwrap(await applyTidy(plan, baton, here));
      if (ctx.json) return ctx.printJson({ dryRun: Boolean(opts.dryRun), defaultBranch: plan.defaultBranch, ...outcome });
      ctx.print(render(ctx, outcome, Boolean(opts.dryRun)));
    }),
  );
}

function render(ctx: CommandContext, outcome: TidyOutcome, dryRun: boolean): string {
  const c = ctx.out;
  const lines: string[] = [];
  const verb = (done: string, would: string) => (dryRun ? would : done).padEnd(12);
  for (const removed of outcome.removed) {
    const branch = removed.branch === null ? '' : removed.branchDeleted ? `  branch ${removed.branch} ${dryRun ? 'would be ' : ''}deleted` : `  branch ${removed.branch} kept: ${removed.branchKept}`;
    lines.push(`${c.green(verb('removed', 'would remove'))}${removed.path}${c.dim(branch)}`);
  }
  for (const path of outcome.pruned) lines.push(`${c.green(verb('pruned', 'would prune'))}${path}${c.dim('  (folder already gone)')}`);
  for (const kept of outcome.kept) {
    lines.push(`${c.yellow('kept'.padEnd(12))}${kept.path}${kept.branch ? c.dim(`  (${kept.branch})`) : ''}`);
    for (const reason of kept.reasons) lines.push(`${' '.repeat(14)}${c.dim(`${reason.code}:`)} ${reason.message}`);
  }
  if (lines.length === 0) lines.push(c.dim('No worktrees besides the main one.'));
  return `${lines.join('\n')}\n`;
}
