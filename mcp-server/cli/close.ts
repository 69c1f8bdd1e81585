import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';

interface CloseOptions extends CommonOptions {
  reason?: string;
}

/** `baton close KEY`: marks an issue done as a person, ending any live lease the way `baton release` does. */
export function registerCloseCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('close')
      .summary('mark an issue done, ending any live lease')
      .description("mark an issue done as a person; a live lease on it ends as with `baton release` (its holder's later writes are refused)")
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .option('--reason <text>', 'why, recorded in the activity log'),
  ).action(
    action<CloseOptions, [string]>(deps, async (ctx, opts, key) => {
      const { baton } = await ctx.open();
      const { issue, released } = unwrap(await baton.closeAsOperator({ key, reason: opts.reason }));
      if (ctx.json) return ctx.printJson({ issue, released });
      ctx.print(`Closed ${ctx.out.bold(issue.key)}  ${issue.title}${released ? ctx.out.dim('  (its lease was released)') : ''}`);
    }),
  );
}
