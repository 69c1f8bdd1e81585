import type { Command } from 'commander';
import type { CommonOptions, CliDeps } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { collect, collectKeys, parseKey, parsePriority } from './options.js';

interface AddOptions extends CommonOptions {
  body?: string;
  priority?: number;
  label?: string[];
  blockedBy?: string[];
  parent?: string;
}

/** `baton add TITLE`: creates one issue. */
export function registerAddCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('add')
      .description('create an issue')
      .argument('<title>', 'what the issue is, in one line')
      .option('-b, --body <markdown>', 'the description')
      .option('-p, --priority <n>', 'priority, 0 (highest) to 4 (default 2)', parsePriority)
      .option('-l, --label <label>', 'a label (repeat, or separate with commas)', collect)
      .option('--blocked-by <key>', 'an issue that must be done first (repeat, or separate with commas)', collectKeys)
      .option('--parent <key>', 'the parent issue', parseKey),
  ).action(
    action<AddOptions, [string]>(deps, async (ctx, opts, title) => {
      const { baton } = await ctx.open();
      const { issue } = unwrap(
        await baton.createIssue({
          title,
          body: opts.body,
          priority: opts.priority,
          labels: opts.label,
          blockedBy: opts.blockedBy,
          parent: opts.parent,
        }),
      );
      if (ctx.json) return ctx.printJson({ issue });
      ctx.print(`Created ${ctx.out.bold(issue.key)}  ${issue.title}  ${ctx.out.dim(`P${issue.priority}`)}`);
    }),
  );
}
