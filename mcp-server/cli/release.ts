import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';

interface ReleaseOptions extends CommonOptions {
  note?: string;
}

/** `baton release KEY`: ends whatever lease holds the issue, as an operator, without its token. */
export function registerReleaseCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('release')
      .summary('end the live lease on an issue')
      .description("end the live lease on an issue (the holder's later writes are refused); it stays doing, claimable")
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .option('--note <text>', 'why, recorded in the activity log'),
  ).action(
    action<ReleaseOptions, [string]>(deps, async (ctx, opts, key) => {
      const { baton } = await ctx.open();
      const { issue, released } = unwrap(await baton.releaseAsOperator({ key, note: opts.note }));
      if (ctx.json) return ctx.printJson({ issue, released });
      if (!released) return ctx.print(`${ctx.out.bold(issue.key)} had no live lease; nothing to release (${issue.status}).`);
      ctx.print(`Released ${ctx.out.bold(issue.key)}  ${issue.title}; it is ${issue.status} and claimable.`);
    }),
  );
}
