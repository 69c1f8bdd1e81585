import type { Command } from 'commander';
import { LIMITS } from '../../shared/limits.js';
import type { Status } from '../../shared/types.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { FINISHED, listAll, withClaims } from './list-rows.js';
import { parseStatus, positiveInt } from './options.js';
import { issuesTable } from './tables.js';

interface LsOptions extends CommonOptions {
  status?: Status;
  label?: string;
  text?: string;
  ready?: boolean;
  all?: boolean;
  limit: number;
}

/** `baton ls`: the issues, with who holds each and for how long. */
export function registerLsCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('ls')
      .summary('list issues')
      .description('list issues with their holder, time left and checkpoint (open issues, newest first)')
      .option('-s, --status <status>', 'only this status (todo, doing, review, done, cancelled)', parseStatus)
      .option('-l, --label <label>', 'only issues with this label')
      .option('-t, --text <text>', 'only issues whose title or body contains this')
      .option('--ready', 'only issues ready to claim, in dispatch order')
      .option('-a, --all', 'include done and cancelled issues')
      .option('-n, --limit <n>', 'at most this many', positiveInt(LIMITS.listMax * 100), LIMITS.listDefault),
  ).action(
    action<LsOptions, []>(deps, async (ctx, opts) => {
      const { baton } = await ctx.open();
      const issues = opts.ready
        ? unwrap(await baton.readyQueue({ limit: Math.min(opts.limit, LIMITS.listMax), labels: opts.label ? [opts.label] : undefined })).issues
        : unwrap(
            await listAll(
              baton,
              { status: opts.status, label: opts.label, text: opts.text },
              opts.limit,
              (issue) => Boolean(opts.all || opts.status) || !FINISHED.includes(issue.status),
            ),
          );
      const rows = unwrap(await withClaims(baton, issues));
      if (ctx.json) return ctx.printJson({ issues: rows });
      if (rows.length === 0) return ctx.print(ctx.out.dim(opts.ready ? 'Nothing is ready.' : 'No issues.'));
      ctx.print(issuesTable(ctx.out, rows, Date.now(), ctx.width));
    }),
  );
}
