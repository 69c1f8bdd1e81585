import type { SessionRecord } from '../types.js';

/**
 * The renewal rule, the one place it is written: a renewer (`baton watchdog`, an editor
 * window) renews a session's leases only while its server process lives AND its agent
 * was active within `idleSeconds` (0: no limit). Heartbeat and checkpoint renew on their
 * own, and are activity too. Past the limit the renewer stops; the lease then runs out
 * as any unrenewed lease does and the issue goes back with its checkpoint.
 */
export type RenewalVerdict = { renew: true } | { renew: false; why: 'gone' } | { renew: false; why: 'idle'; idleMs: number };

export interface RenewalContext {
  /** The store's clock, in ms. */
  now: number;
  idleSeconds: number;
  isAlive(session: SessionRecord): boolean;
}

/** Whether a renewer renews this session's leases now, and if not, why. */
export function renewalVerdict(session: SessionRecord, ctx: RenewalContext): RenewalVerdict {
  if (session.endedAt !== null || !ctx.isAlive(session)) return { renew: false, why: 'gone' };
  const idleMs = idleFor(session, ctx.now);
  if (ctx.idleSeconds > 0 && idleMs >= ctx.idleSeconds * 1000) return { renew: false, why: 'idle', idleMs };
  return { renew: true };
}

/** How long the session's agent has shown no sign of life (a session from before activity was kept counts from its start). */
export function idleFor(session: Pick<SessionRecord, 'lastActiveAt' | 'startedAt'>, now: number): number {
  return Math.max(0, now - Date.parse(session.lastActiveAt ?? session.startedAt));
}

/** "BAT-7: its agent has been idle 61 min": what a renewer logs, and records, when it stops. */
export function idleStopMessage(key: string, idleMs: number): string {
  return `${key}: its agent has been idle ${idleDuration(idleMs)}`;
}

/** The detail of the `renewal_stopped` event a renewer records once when it stops for idleness. */
export function idleStopDetail(idleMs: number, idleSeconds: number): string {
  return `renewal stopped: idle (its agent has been idle ${idleDuration(idleMs)}, past the limit of ${idleDuration(idleSeconds * 1000)})`;
}

/** A short duration for people: "40 s", "61 min", "3 h 5 min". */
export function idleDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 120) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

/**
 * How often at most a server writes its agent's activity to the store when no renewal
 * carries it: often enough that a renewer never sees an active agent as idle (a quarter
 * of the limit), and never more than every 5 s, so that a burst of reads costs at most
 * one small write per interval.
 */
export function activityWriteMs(idleSeconds: number): number {
  return idleSeconds === 0 ? 5000 : Math.min(5000, Math.floor((idleSeconds * 1000) / 4));
}
