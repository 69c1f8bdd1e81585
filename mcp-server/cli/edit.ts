import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap, usage } from './exit.js';
import { collect, parseKey, parsePriority } from './options.js';

interface EditOptions extends CommonOptions {
  title?: string;
  body?: string;
  priority?: number;
  label?: string[];
}

/** `baton edit KEY`: changes an issue's title, body, priority or labels (update_issue for people). */
export function registerEditCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('edit')
      .summary("change an issue's title, body, priority or labels")
      .description("change an issue's title, body, priority or labels; a lease is neither needed nor renewed")
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .option('-t, --title <text>', 'the new title')
      .option('-b, --body <markdown>', 'the new description')
      .option('-p, --priority <n>', 'the new priority, 0 (highest) to 4', parsePriority)
      .option('-l, --label <label>', 'the labels, replacing the old ones (repeat, or separate with commas)', collect),
  ).action(
    action<EditOptions, [string]>(deps, async (ctx, opts, key) => {
      if (opts.title === undefined && opts.body === undefined && opts.priority === undefined && opts.label === undefined) {
        throw usage('Nothing to change: give --title, --body, --priority or --label.');
      }
      const { baton } = await ctx.open();
      const { issue } = unwrap(await baton.updateIssue({ key, title: opts.title, body: opts.body, priority: opts.priority, labels: opts.label }));
      if (ctx.json) return ctx.printJson({ issue });
      ctx.print(`Edited ${ctx.out.bold(issue.key)}  ${issue.title}  ${ctx.out.dim(`P${issue.priority}${issue.labels.length ? `  ${issue.labels.join(', ')}` : ''}`)}`);
    }),
  );
}
