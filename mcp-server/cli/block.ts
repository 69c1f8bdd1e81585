import type { Command } from 'commander';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';
import { printRelated } from './relate.js';

interface BlockOptions extends CommonOptions {
  by: string;
}

/** `baton block KEY --by OTHER`: relate with type blockedBy. */
export function registerBlockCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('block')
      .summary('mark an issue as blocked by another')
      .description('mark KEY as blocked by OTHER (OTHER must be done first); a dependency cycle is refused')
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .requiredOption('--by <other>', 'the blocking issue', parseKey),
  ).action(
    action<BlockOptions, [string]>(deps, async (ctx, opts, key) => {
      const { baton } = await ctx.open();
      printRelated(ctx, unwrap(await baton.relate({ key, type: 'blockedBy', other: opts.by, remove: false })));
    }),
  );
}
