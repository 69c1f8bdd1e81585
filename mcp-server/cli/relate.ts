import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { Issue, RelationType, Relations } from '../../shared/types.js';
import { RELATION_TYPES } from '../../shared/types.js';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { parseKey } from './options.js';

interface RelateOptions extends CommonOptions {
  type: RelationType;
  remove?: boolean;
}

function parseType(value: string): RelationType {
  if (!(RELATION_TYPES as readonly string[]).includes(value)) throw new InvalidArgumentError(`expected one of ${RELATION_TYPES.join(', ')}.`);
  return value as RelationType;
}

/** `baton relate KEY --type T OTHER [--remove]`: the relate tool for people. */
export function registerRelateCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('relate')
      .summary('add or remove a relation between two issues')
      .description('add or remove a relation: KEY blocks, is blockedBy, relatesTo or has as parent OTHER; a dependency cycle is refused')
      .argument('<key>', 'the issue key, such as BAT-12', parseKey)
      .argument('<other>', 'the other issue', parseKey)
      .requiredOption('--type <type>', `the relation: ${RELATION_TYPES.join(', ')}`, parseType)
      .option('--remove', 'remove the relation instead'),
  ).action(
    action<RelateOptions, [string, string]>(deps, async (ctx, opts, key, other) => {
      const { baton } = await ctx.open();
      printRelated(ctx, unwrap(await baton.relate({ key, type: opts.type, other, remove: opts.remove })));
    }),
  );
}

/** What `relate`, `block` and `unblock` print: `{ issue, relations }`, or the relations for people. */
export function printRelated(ctx: CommandContext, answer: { issue: Issue; relations: Relations }): void {
  if (ctx.json) return ctx.printJson(answer);
  const { issue, relations } = answer;
  const parts = [
    relations.blockedBy.length ? `blocked by ${relations.blockedBy.join(', ')}` : '',
    relations.blocks.length ? `blocks ${relations.blocks.join(', ')}` : '',
    relations.relatesTo.length ? `relates to ${relations.relatesTo.join(', ')}` : '',
    relations.parent ? `parent ${relations.parent}` : '',
    relations.children.length ? `children ${relations.children.join(', ')}` : '',
  ].filter(Boolean);
  ctx.print(`${ctx.out.bold(issue.key)}  ${parts.length ? parts.join('; ') : 'no relations'}`);
}
