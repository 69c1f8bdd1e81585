import { hostname } from 'node:os';
import type { Baton } from '../../shared/baton.js';
import type { Result } from '../../shared/result.js';
import { ok } from '../../shared/result.js';
import { isProcessAlive } from '../../shared/sessions.js';
import type { ClaimView, Lease, SessionRecord } from '../../shared/types.js';

/** What one pass of the watchdog did. */
export interface WatchdogPass {
  renewed: (Lease & { session: string })[];
  /** Leases of sessions whose process died, seen for the first time: left to expire. */
  gaveUp: (ClaimView & { pid: number })[];
  /** A third of the shortest lease length seen, or of the configured one: when to look again. */
  nextInMs: number;
}

/**
 * Keeps alive the leases of sessions whose server process still runs on this machine,
 * and lets those of dead processes expire. Sessions renewed by an editor window
 * (`vscode:`) are that window's business; sessions elsewhere cannot be checked.
 */
export class Watchdog {
  private readonly givenUp = new Set<string>();

  constructor(
    private readonly baton: Baton,
    private readonly options: { agent?: string; host?: string; isAlive?: (pid: number) => boolean } = {},
  ) {}

  async pass(): Promise<Result<WatchdogPass>> {
    const sessions = await this.baton.listSessions();
    if (!sessions.ok) return sessions;
    const claims = await this.baton.listClaims();
    if (!claims.ok) return claims;
    const mine = sessions.value.sessions.filter((s) => this.watches(s));
    const alive = (s: SessionRecord) => !s.endedAt && (this.options.isAlive ?? isProcessAlive)(s.pid);
    const live = mine.filter(alive);
    const dead = new Map(mine.filter((s) => !alive(s)).map((s) => [s.id, s]));

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

    const lengths = [...renewed, ...claims.value.claims]
      .map((l) => Date.parse(l.expiresAt) - Date.parse(l.lastRenewedAt))
      .filter((ms) => ms > 0);
    const shortest = Math.min(this.baton.leaseSeconds * 1000, ...lengths);
    return ok({ renewed, gaveUp, nextInMs: Math.max(200, Math.floor(shortest / 3)) });
  }

  /** Sessions this watchdog looks after: on this machine, of the named agent, not an editor's. */
  private watches(session: SessionRecord): boolean {
    if (session.host !== (this.options.host ?? hostname())) return false;
    if (this.options.agent !== undefined && session.agent !== this.options.agent) return false;
    return !session.renewer?.startsWith('vscode:');
  }
}
