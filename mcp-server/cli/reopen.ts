import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';

/** `baton reopen KEY`: a done, cancelled or stuck issue back to todo. */
export function registerReopenCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('reopen')
      .summary('put a done, cancelled or stuck issue back to todo')
      .description('put a done, cancelled or stuck issue back to todo, where dispatch hands it out again')
      .argument('<key>', 'the issue key, such as BAT-12', parseKey),
  ).action(
    action<CommonOptions, [string]>(deps, async (ctx, _opts, key) => {
      const { baton } = await ctx.open();
      const { issue } = unwrap(await baton.reopen({ key }));
      if (ctx.json) return ctx.printJson({ issue });
      ctx.print(`Reopened ${ctx.out.bold(issue.key)}  ${issue.title}; it is ${issue.status}.`);
    }),
  );
}
