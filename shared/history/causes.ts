import type { SessionRow } from '../rules/history.js';
import { iso, type EventRow, type TokenRow } from '../rules/rows.js';

/**
 * Why a lease ran out, as far as the store can tell: when it was last renewed, whether
 * anything was meant to renew it, and what became of its server. A `renewal_stopped`
 * event of the holder during the holding (a renewer that stopped, for instance because
 * the agent went idle) is named first, being the most precise.
 */
export function expiryCause(token: TokenRow, sessions: readonly SessionRow[], events: readonly EventRow[]): string {
  const from = Number(token.started_at ?? 0);
  const to = Number(token.ended_at ?? Number.MAX_SAFE_INTEGER);
  const parts: string[] = [];
  const lastRenewal = token.renewed_to ?? token.started_at;
  if (lastRenewal !== null) {
    const count = Number(token.renewals);
    parts.push(`no renewal since ${iso(Number(lastRenewal))}${count > 0 ? ` (renewed ${count}× before)` : ' (never renewed after the claim)'}`);
  }
  const stopped = events.find((e) => e.type === 'renewal_stopped' && e.agent === token.agent && Number(e.at) >= from && Number(e.at) <= to);
  if (stopped) parts.push(`its renewal stopped (${stopped.detail}) at ${iso(Number(stopped.at))}`);
  else if (token.renewer === null) parts.push('it had no renewer, so only its own heartbeats could keep it');
  else parts.push(`its renewer ${token.renewer} stopped renewing it`);
  const session = sessions.find((s) => s.id === token.session);
  if (session?.ended_at !== null && session?.ended_at !== undefined) {
    parts.push(`its server (pid ${session.pid}) ended at ${iso(Number(session.ended_at))}`);
  } else if (session) {
    parts.push(`its server (pid ${session.pid}) had not ended: it died without a clean exit, hung, or its agent stopped calling`);
  }
  return parts.join('; ');
}
