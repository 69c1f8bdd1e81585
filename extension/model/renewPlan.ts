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
}

/**
 * Which leases a window renews: only those whose renewer is this window and whose
 * holding process is alive. A claim whose holder is gone, or that another renewer
 * owns, is never renewed, so a dead agent's lease runs out on time.
 */
export function planRenewal(claims: readonly ClaimView[], sessions: readonly SessionRecord[], renewer: string, isAlive: IsAlive): RenewalPlan {
  const plan: RenewalPlan = { sessions: [], keys: [], lapsing: [] };
  for (const claim of claims) {
    if (claim.renewer !== renewer) continue;
    const session = sessionOf(claim, sessions);
    if (session && session.renewer === renewer && isAlive(session)) {
      if (!plan.sessions.includes(session.id)) plan.sessions.push(session.id);
      plan.keys.push(claim.key);
    } else {
      plan.lapsing.push(claim.key);
    }
  }
  return plan;
}
