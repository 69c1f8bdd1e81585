import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';
import { printRelated } from './relate.js';

interface UnblockOptions extends CommonOptions {
  by: string;
}

/** `baton unblock KEY --by OTHER`: relate with type blockedBy, removed. */
export function registerUnblockCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('unblock')
      .summary('remove a blocker of an issue')
      .description('remove OTHER from the blockers of KEY')
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .requiredOption('--by <other>', 'the blocking issue', parseKey),
  ).action(
    action<UnblockOptions, [string]>(deps, async (ctx, opts, key) => {
      const { baton } = await ctx.open();
      printRelated(ctx, unwrap(await baton.relate({ key, type: 'blockedBy', other: opts.by, remove: true })));
    }),
  );
}
