import type { Command } from 'commander';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { untilInterrupted } from './interrupt.js';
import { countdown, secondsUntil } from './render.js';
import type { WatchdogPass } from './watchdog-pass.js';
import { Watchdog } from './watchdog-pass.js';

interface WatchdogOptions extends CommonOptions {
  agent?: string;
  once?: boolean;
}

/** `baton watchdog`: keeps live agents' leases alive while their processes run, and only then. */
export function registerWatchdogCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('watchdog')
      .summary('keep the leases of live agents on this machine renewed')
      .description(
        'run beside your agents: every third of the lease length, renew the leases of sessions whose server ' +
          'process is alive on this machine; a dead one is left to expire (editor windows renew their own). ' +
          'Logs to stderr; Ctrl-C stops it',
      )
      .option('--agent <name>', 'only sessions of this agent')
      .option('--once', 'one pass, then exit'),
  ).action(
    action<WatchdogOptions, []>(deps, async (ctx, opts) => {
      const { baton } = await ctx.open({ agent: 'watchdog' });
      const watchdog = new Watchdog(baton, { agent: opts.agent });
      const who = opts.agent ? `agent ${opts.agent}` : 'every agent';
      log(ctx, { event: 'started', agent: opts.agent ?? null, leaseSeconds: baton.leaseSeconds }, `watching ${who} on this machine`);
      if (opts.once) return report(ctx, unwrap(await watchdog.pass()));
      let delay = 0;
      const step = async () => {
        const pass = await watchdog.pass();
        if (!pass.ok) {
          // A busy or briefly unreachable store must not stop the renewals: try again soon.
          log(ctx, { event: 'error', code: pass.error.code, message: pass.error.message }, `could not renew: ${pass.error.code} ${pass.error.message}`);
          delay = Math.max(200, Math.floor((baton.leaseSeconds * 1000) / 6));
          return;
        }
        report(ctx, pass.value);
        delay = pass.value.nextInMs;
      };
      // The delay follows the shortest lease seen, so it is recomputed after each pass.
      await untilInterrupted(() => delay, step);
      log(ctx, { event: 'stopped' }, 'stopped; the leases it renewed live until they expire or are renewed again');
    }),
  );
}

function report(ctx: CommandContext, pass: WatchdogPass): void {
  const now = Date.now();
  for (const lease of pass.renewed) {
    log(
      ctx,
      { event: 'renewed', key: lease.key, agent: lease.agent, session: lease.session, expiresAt: lease.expiresAt },
      `renewed ${lease.key} (${lease.agent}) for ${countdown(secondsUntil(lease.expiresAt, now))}`,
    );
  }
  for (const claim of pass.gaveUp) {
    log(
      ctx,
      { event: 'gave_up', key: claim.key, agent: claim.agent, session: claim.session, pid: claim.pid, expiresAt: claim.expiresAt },
      `gave up on ${claim.key} (${claim.agent}): its server process ${claim.pid} is gone; ` +
        `the lease expires in ${countdown(secondsUntil(claim.expiresAt, now))}`,
    );
  }
}

/** One line on stderr: JSON with `--json`, else a timestamped sentence. */
function log(ctx: CommandContext, event: Record<string, unknown>, text: string): void {
  const at = new Date().toISOString();
  ctx.log(ctx.json ? JSON.stringify({ at, ...event }) : `${ctx.err.dim(at.slice(11, 19))} watchdog ${text}`);
}
