import type { Command } from 'commander';
import type { ClaimView } from '../../shared/types.js';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { untilInterrupted } from './interrupt.js';
import { LiveView } from './live-view.js';
import { tuneForALongLivedProcess } from './long-lived.js';
import { positiveInt } from './options.js';
import { claimsTable } from './tables.js';

interface ClaimsOptions extends CommonOptions {
  watch?: boolean;
  interval: number;
}

/** How often `--watch` redraws: countdowns tick every second, so a little faster than that. */
const FRAME_MS = 250;

/** `baton claims`: every live lease, with a countdown; `--watch` keeps it on screen. */
export function registerClaimsCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('claims')
      .summary('list live leases with countdowns')
      .description('list live leases: who holds what, for how long, and where they stand')
      .option('-w, --watch', 'keep the table on screen, counting down, until Ctrl-C (with --json: a line each time the claims change)')
      .option('--interval <ms>', 'how often --watch reads the database', positiveInt(60_000), 1000),
  ).action(
    action<ClaimsOptions, []>(deps, async (ctx, opts) => {
      if (opts.watch) tuneForALongLivedProcess();
      const { baton } = await ctx.open();
      const now = await ctx.storeClock();
      const read = async () => unwrap(await baton.listClaims()).claims;
      if (!opts.watch) {
        const claims = await read();
        return ctx.json ? ctx.printJson({ claims }) : ctx.print(render(ctx, claims, now(), baton.config.idleSeconds));
      }
      if (ctx.json) {
        // For scripts: one JSON document per line, each time the claims change (countdowns aside).
        let last = '';
        await untilInterrupted(opts.interval, async () => {
          const claims = await read();
          const line = JSON.stringify({ claims: claims.map(({ secondsLeft: _, ...claim }) => claim) });
          if (line !== last) ctx.print(line);
          last = line;
        });
        return;
      }
      const view = new LiveView(deps.stdout, ctx.out.isColorSupported);
      let claims = await read();
      let readAt = Date.now();
      await untilInterrupted(FRAME_MS, async () => {
        if (Date.now() - readAt >= opts.interval) {
          claims = await read();
          readAt = Date.now();
        }
        view.draw(render(ctx, claims, now(), baton.config.idleSeconds));
      });
      view.done();
    }),
  );
}

function render(ctx: CommandContext, claims: ClaimView[], now: number, idleSeconds: number): string {
  return claims.length === 0 ? ctx.out.dim('No live claims.\n') : claimsTable(ctx.out, claims, now, ctx.width, idleSeconds);
}
