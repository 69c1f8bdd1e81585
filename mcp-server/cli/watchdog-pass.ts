import { hostname } from 'node:os';
import type { Baton } from '../../shared/baton.js';
import type { Result } from '../../shared/result.js';
import { ok } from '../../shared/result.js';
import { idleStopDetail, type RenewalVerdict, renewalVerdict } from '../../shared/rules/renewal.js';
import { isProcessAlive } from '../../shared/sessions.js';
import type { ClaimView, Lease, SessionRecord } from '../../shared/types.js';

/** What one pass of the watchdog did. */
export interface WatchdogPass {
  renewed: (Lease & { session: string })[];
  /** Leases of sessions whose process died, seen for the first time: left to expire. */
  gaveUp: (ClaimView & { pid: number })[];
  /** Leases of live sessions whose agent is past the idle limit, seen for the first time: left to expire. */
  idle: (ClaimView & { idleMs: number })[];
  /** A third of the shortest lease length seen, or of the configured one: when to look again. */
  nextInMs: number;
}

/**
 * Keeps alive the leases of sessions whose server process still runs on this machine and
 * whose agent was active within the idle limit (shared/rules/renewal.ts), and lets the
 * others expire. Sessions renewed by an editor window
 * (`vscode:`) are that window's business; sessions elsewhere cannot be checked.
 */
export class Watchdog {
  private readonly givenUp = new Set<string>();

  constructor(
    private readonly baton: Baton,
    private readonly options: { agent?: string; host?: string; isAlive?: (pid: number) => boolean; now?: () => number } = {},
  ) {}

  async pass(): Promise<Result<WatchdogPass>> {
    const sessions = await this.baton.listSessions();
    if (!sessions.ok) return sessions;
    const claims = await this.baton.listClaims();
    if (!claims.ok) return claims;
    const mine = sessions.value.sessions.filter((s) => this.watches(s));
    const rule = { now: (this.options.now ?? Date.now)(), idleSeconds: this.baton.config.idleSeconds, isAlive: (s: SessionRecord) => (this.options.isAlive ?? isProcessAlive)(s.pid) };
    const verdicts = new Map(mine.map((s) => [s.id, renewalVerdict(s, rule)]));
    const live = mine.filter((s) => verdicts.get(s.id)!.renew);
    const dead = new Map(mine.filter((s) => whyNot(verdicts.get(s.id)) === 'gone').map((s) => [s.id, s]));

    // Only sessions holding a lease: a pass with nothing to renew then writes nothing.
    const holding = new Set(claims.value.claims.map((c) => c.session));
    const renewedLeases = await this.baton.renewLeases({ sessions: live.filter((s) => holding.has(s.id)).map((s) => s.id) });
    if (!renewedLeases.ok) return renewedLeases;
    const sessionOf = new Map(claims.value.claims.map((c) => [c.key, c.session]));
    const renewed = renewedLeases.value.leases.map((lease) => ({ ...lease, session: sessionOf.get(lease.key) ?? '' }));

    const gaveUp: WatchdogPass['gaveUp'] = [];
    for (const claim of claims.value.claims) {
      const session = dead.get(claim.session);
      const id = `${claim.session}/${claim.key}`;
      if (!session || this.givenUp.has(id)) continue;
      this.givenUp.add(id);
      gaveUp.push({ ...claim, pid: session.pid });
    }

    const idle: WatchdogPass['idle'] = [];
    for (const claim of claims.value.claims) {
      const verdict = verdicts.get(claim.session);
      const id = `${claim.session}/${claim.key}`;
      if (verdict?.renew !== false || verdict.why !== 'idle' || this.givenUp.has(id)) continue;
      this.givenUp.add(id);
      idle.push({ ...claim, idleMs: verdict.idleMs });
    }
    // Recorded once per lease, as the log says it once: `baton why` and the tree show it.
    const recorded = await this.baton.recordRenewalStopped({ stops: idle.map((c) => ({ key: c.key, detail: idleStopDetail(c.idleMs, rule.idleSeconds) })) });
    if (!recorded.ok) return recorded;

    const lengths = [...renewed, ...claims.value.claims]
      .map((l) => Date.parse(l.expiresAt) - Date.parse(l.lastRenewedAt))
      .filter((ms) => ms > 0);
    const shortest = Math.min(this.baton.leaseSeconds * 1000, ...lengths);
    return ok({ renewed, gaveUp, idle, nextInMs: Math.max(200, Math.floor(shortest / 3)) });
  }

  /** Sessions this watchdog looks after: on this machine, of the named agent, not an editor's. */
  private watches(session: SessionRecord): boolean {
    if (session.host !== (this.options.host ?? hostname())) return false;
    if (this.options.agent !== undefined && session.agent !== this.options.agent) return false;
    return !session.renewer?.startsWith('vscode:');
  }
}

function whyNot(verdict: RenewalVerdict | undefined): string | undefined {
  return verdict && !verdict.renew ? verdict.why : undefined;
}
