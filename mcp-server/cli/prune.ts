import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { Pruned } from '../../shared/rules/retention.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';

interface PruneOptions extends CommonOptions {
  olderThan?: number;
}

function parseDays(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 36_500) throw new InvalidArgumentError('expected a whole number of days from 0 to 36500.');
  return Number(value);
}

/** `baton prune`: applies retention now, to the end rather than one bounded run, then gives the space back. */
export function registerPruneCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('prune')
      .summary('fold old history into summaries now and shrink the database')
      .description(
        'fold the history of finished issues older than historyDays (or --older-than) into per-issue summaries, ' +
          'as servers do at start and daily, then compact the database so the file shrinks',
      )
      .option('--older-than <days>', 'fold history older than this many days (default: the historyDays setting, 90)', parseDays),
  ).action(
    action<PruneOptions, []>(deps, async (ctx, opts) => {
      const { baton, store } = await ctx.open();
      const before = (await store.info()).sizes;
      const total: Pruned = { events: 0, checkpoints: 0, tokens: 0, requests: 0, more: true };
      while (total.more) {
        const run = unwrap(await baton.prune({ olderThanDays: opts.olderThan }));
        total.events += run.events;
        total.checkpoints += run.checkpoints;
        total.tokens += run.tokens;
        total.requests += run.requests;
        total.more = run.more;
      }
      await store.compact();
      const after = (await store.info()).sizes;
      const { more: _more, ...folded } = total;
      const bytes = before && after ? { before: before.snapshot + before.log, after: after.snapshot + after.log } : null;
      if (ctx.json) return ctx.printJson({ folded, bytes });
      const size = bytes ? `; the database went from ${megabytes(bytes.before)} to ${megabytes(bytes.after)}` : '';
      ctx.print(`Folded ${folded.events} events, ${folded.checkpoints} older checkpoints and ${folded.tokens} ended leases' tokens; removed ${folded.requests} old request ids${size}.`);
    }),
  );
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
