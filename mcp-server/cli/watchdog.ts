import type { Command } from 'commander';
import type { CliDeps, CommandContext, CommonOptions } from './context.js';
import { idleStopMessage } from '../../shared/rules/renewal.js';
import { action, withCommonOptions } from './context.js';
import { unwrap } from './exit.js';
import { untilInterrupted } from './interrupt.js';
import { tuneForALongLivedProcess } from './long-lived.js';
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
          'process is alive on this machine and whose agent was active within idleSeconds; a dead or idle one is ' +
          'left to expire (editor windows renew their own). ' +
          'Logs to stderr; with --json also prints each event as a JSON line on stdout. Ctrl-C stops it',
      )
      .option('--agent <name>', 'only sessions of this agent')
      .option('--once', 'one pass, then exit (with --json: one JSON document { renewed, gaveUp, idle } on stdout)'),
  ).action(
    action<WatchdogOptions, []>(deps, async (ctx, opts) => {
      if (!opts.once) tuneForALongLivedProcess();
      const { baton } = await ctx.open({ agent: 'watchdog' });
      const now = await ctx.storeClock();
      const watchdog = new Watchdog(baton, { agent: opts.agent, now });
      // With --once the pass is one answer, printed whole at the end; a long run has no
      // end to wait for, so it prints each event as it happens, a JSON line each.
      const log = logger(ctx, ctx.json && !opts.once);
      const who = opts.agent ? `agent ${opts.agent}` : 'every agent';
      log({ event: 'started', agent: opts.agent ?? null, leaseSeconds: baton.leaseSeconds }, `watching ${who} on this machine`);
      if (opts.once) {
        const pass = unwrap(await watchdog.pass());
        report(log, pass, now());
        if (ctx.json) ctx.printJson({ renewed: pass.renewed.map(renewedEvent), gaveUp: pass.gaveUp.map(gaveUpEvent), idle: pass.idle.map(idleEvent) });
        return;
      }
      let delay = 0;
      const step = async () => {
        const pass = await watchdog.pass();
        if (!pass.ok) {
          // A busy or briefly unreachable store must not stop the renewals: try again soon.
          log({ event: 'error', code: pass.error.code, message: pass.error.message }, `could not renew: ${pass.error.code} ${pass.error.message}`);
          delay = Math.max(200, Math.floor((baton.leaseSeconds * 1000) / 6));
          return;
        }
        report(log, pass.value, now());
        delay = pass.value.nextInMs;
      };
      // The delay follows the shortest lease seen, so it is recomputed after each pass.
      await untilInterrupted(() => delay, step);
      log({ event: 'stopped' }, 'stopped; the leases it renewed live until they expire or are renewed again');
    }),
  );
}

type Log = (event: Record<string, unknown>, text: string) => void;

function report(log: Log, pass: WatchdogPass, now: number): void {
  for (const lease of pass.renewed) {
    log({ event: 'renewed', ...renewedEvent(lease) }, `renewed ${lease.key} (${lease.agent}) for ${countdown(secondsUntil(lease.expiresAt, now))}`);
  }
  for (const claim of pass.gaveUp) {
    log(
      { event: 'gave_up', ...gaveUpEvent(claim) },
      `gave up on ${claim.key} (${claim.agent}): its server process ${claim.pid} is gone; ` +
        `the lease expires in ${countdown(secondsUntil(claim.expiresAt, now))}`,
    );
  }
  for (const claim of pass.idle) {
    log(
      { event: 'idle', ...idleEvent(claim) },
      `stopped renewing ${idleStopMessage(claim.key, claim.idleMs)} (${claim.agent}); the lease expires in ${countdown(secondsUntil(claim.expiresAt, now))}`,
    );
  }
}

function idleEvent(claim: WatchdogPass['idle'][number]) {
  return { key: claim.key, agent: claim.agent, session: claim.session, idleSeconds: Math.floor(claim.idleMs / 1000), expiresAt: claim.expiresAt };
}

/** What scripts see of a renewal: which lease, whose, and its new expiry (never more of the lease). */
function renewedEvent(lease: WatchdogPass['renewed'][number]) {
  return { key: lease.key, agent: lease.agent, session: lease.session, expiresAt: lease.expiresAt };
}

function gaveUpEvent(claim: WatchdogPass['gaveUp'][number]) {
  return { key: claim.key, agent: claim.agent, session: claim.session, pid: claim.pid, expiresAt: claim.expiresAt };
}

/**
 * A timestamped sentence on stderr for people, always; with `jsonLines`, the event as
 * one JSON line on stdout as well, so that stdout carries only data for scripts.
 */
function logger(ctx: CommandContext, jsonLines: boolean): Log {
  return (event, text) => {
    const at = new Date().toISOString();
    ctx.log(`${ctx.err.dim(at.slice(11, 19))} watchdog ${text}`);
    if (jsonLines) ctx.print(JSON.stringify({ at, ...event }));
  };
}
