import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';

/** `baton comment KEY TEXT`: adds a comment, as the comment tool does. */
export function registerCommentCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('comment')
      .description('add a comment to an issue')
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .argument('<text>', 'the comment (markdown)'),
  ).action(
    action<CommonOptions, [string, string]>(deps, async (ctx, _opts, key, text) => {
      const { baton } = await ctx.open();
      const { comment } = unwrap(await baton.comment({ key, text }));
      if (ctx.json) return ctx.printJson({ comment });
      ctx.print(`Commented on ${ctx.out.bold(key)} ${ctx.out.dim(`(#${comment.id}, ${comment.at})`)}`);
    }),
  );
}
