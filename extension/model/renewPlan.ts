import { renewalVerdict } from '../../shared/rules/renewal.js';
import type { ClaimView, SessionRecord } from '../../shared/types.js';

export type IsAlive = (session: SessionRecord) => boolean;

/** The session record behind a claim; the claim carries a short form of the session id. */
export function sessionOf(claim: Pick<ClaimView, 'session'>, sessions: readonly SessionRecord[]): SessionRecord | undefined {
  return sessions.find((s) => s.id === claim.session) ?? sessions.find((s) => claim.session !== '' && s.id.startsWith(claim.session));
}

/** Whether this window keeps the claim alive: its renewer is this window and its holder process still runs. */
export function isKeptAliveBy(claim: ClaimView, renewer: string, sessions: readonly SessionRecord[], isAlive: IsAlive): boolean {
  if (claim.renewer !== renewer) return false;
  const session = sessionOf(claim, sessions);
  return session !== undefined && session.renewer === renewer && isAlive(session);
}

export interface RenewalPlan {
  /** Full ids of the sessions whose leases to renew. */
  sessions: string[];
  /** Keys renewed by that. */
  keys: string[];
  /** Keys this window renewed while their holder ran, now left to expire because the holder is gone. */
  lapsing: string[];
  /** Leases of holders that run but whose agent is past the idle limit: left to expire too. */
  idle: { key: string; idleMs: number }[];
}

/** The idle limit and the store's clock now, for the renewal rule (shared/rules/renewal.ts). */
export interface IdleLimit {
  now: number;
  idleSeconds: number;
}

/**
 * Which leases a window renews: only those whose renewer is this window, by the renewal
 * rule (shared/rules/renewal.ts): the holding process is alive and its agent was active
 * within the idle limit. A claim whose holder is gone or idle, or that another renewer
 * owns, is never renewed, so its lease runs out on time.
 */
export function planRenewal(claims: readonly ClaimView[], sessions: readonly SessionRecord[], renewer: string, isAlive: IsAlive, limit: IdleLimit): RenewalPlan {
  const plan: RenewalPlan = { sessions: [], keys: [], lapsing: [], idle: [] };
  for (const claim of claims) {
    if (claim.renewer !== renewer) continue;
    const session = sessionOf(claim, sessions);
    const verdict = session && session.renewer === renewer ? renewalVerdict(session, { ...limit, isAlive }) : undefined;
    if (session && verdict?.renew) {
      if (!plan.sessions.includes(session.id)) plan.sessions.push(session.id);
      plan.keys.push(claim.key);
    } else if (verdict && !verdict.renew && verdict.why === 'idle') {
      plan.idle.push({ key: claim.key, idleMs: verdict.idleMs });
    } else {
      plan.lapsing.push(claim.key);
    }
  }
  return plan;
}
