import type { Command } from 'commander';
import { LIMITS } from '../../shared/limits.js';
import type { Baton } from '../../shared/baton.js';
import type { Result } from '../../shared/result.js';
import { ok } from '../../shared/result.js';
import { FINISHED, type IssueSummary, type Status } from '../../shared/types.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { listAll, withClaims } from './list-rows.js';
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
      .option('-s, --status <status>', 'only this status (todo, doing, review, done, cancelled, stuck)', parseStatus)
      .option('-l, --label <label>', 'only issues with this label')
      .option('-t, --text <text>', 'only issues whose title or body contains this')
      .option('--ready', 'only issues ready to claim, in dispatch order (the other filters still apply)')
      .option('-a, --all', 'include done and cancelled issues')
      .option('-n, --limit <n>', 'at most this many', positiveInt(LIMITS.listMax * 100), LIMITS.listDefault),
  ).action(
    action<LsOptions, []>(deps, async (ctx, opts) => {
      const { baton } = await ctx.open();
      const issues = opts.ready
        ? unwrap(await readyMatching(baton, opts))
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
      // Issues that need a person come first, each with its reason, apart from the table.
      const attention = rows.filter((row) => row.attention);
      const rest = rows.filter((row) => !row.attention);
      if (attention.length > 0) {
        ctx.print([ctx.out.bold('Needs attention'), ...attention.map((row) => `  ${ctx.out.yellow(row.status)}  ${ctx.out.bold(row.key)}  ${row.title}  ${ctx.out.dim(row.attention!)}`), ''].join('\n'));
      }
      if (rest.length > 0) ctx.print(issuesTable(ctx.out, rest, (await ctx.storeClock())(), ctx.width));
    }),
  );
}

/**
 * The ready queue in dispatch order, narrowed by --status and --text as `list_issues`
 * narrows `ready: true`: every filter of `ls` means "only", with or without --ready.
 * The store matches the text (as for a plain `ls`); the queue gives the order.
 */
async function readyMatching(baton: Baton, opts: LsOptions): Promise<Result<IssueSummary[]>> {
  const labels = opts.label ? [opts.label] : undefined;
  const filtered = opts.status !== undefined || opts.text !== undefined;
  const queue = await baton.readyQueue({ limit: filtered ? LIMITS.listMax : Math.min(opts.limit, LIMITS.listMax), labels });
  if (!queue.ok) return queue;
  if (!filtered) return ok(queue.value.issues);
  const matching = await listAll(baton, { ready: true, status: opts.status, label: opts.label, text: opts.text });
  if (!matching.ok) return matching;
  const keys = new Set(matching.value.map((issue) => issue.key));
  return ok(queue.value.issues.filter((issue) => keys.has(issue.key)).slice(0, opts.limit));
}
