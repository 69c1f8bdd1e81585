import type { ServiceOperations } from '../service-operations.js';
import { noticesText } from '../notice-text.js';
import { activityWriteMs } from '../rules/renewal.js';
import type { ClaimView, SessionRecord } from '../types.js';
import { isProcessAlive } from '../sessions.js';
import { agentSessions, type HookProcess } from './agent-sessions.js';
import type { HookAnswer, HookInput } from './hook-event.js';

/**
 * What Baton does for one hook event (`Baton.hookEvent`, which runs it where the store is
 * open: in the server writing for the others when there is one, so that a hook process
 * need not load the database) of an agent, whichever its client (docs/protocol.md, "Liveness"):
 *
 * - every event is activity of the agent's sessions;
 * - a tool call also renews their leases, so a working agent need not call heartbeat;
 * - an event whose answer reaches the agent (`tells`) tells it, once, of each lease it lost;
 * - a stop (not when `continuing`) that tells no loss asks once, while the agent holds a
 *   live lease it has not checkpointed within `checkpointNudgeSeconds`, to checkpoint first;
 * - a session's end records the end of its sessions (not on `clear`, after which Claude
 *   Code keeps its servers); the leases are left to expire, so a restarted agent takes them over.
 *
 * Writes only when something is due: activity older than `activityWriteMs`, a lease
 * renewed longer ago than a sixth of its length, a loss to tell, an end.
 */
export async function answerHook(baton: ServiceOperations, input: HookInput, hook: HookProcess, now: number): Promise<HookAnswer | null> {
  const ctx = { now };
  const listed = await baton.listSessions();
  if (!listed.ok) return null;
  const mine: SessionRecord[] = agentSessions(listed.value.sessions, hook, isProcessAlive);
  if (mine.length === 0) return null;
  const ids = mine.map((s) => s.id);
  const claims = await baton.listClaims();
  if (!claims.ok) return null;
  const held = claims.value.claims.filter((c) => ids.includes(c.session));

  if (input.event === 'end') {
    if (input.reason !== 'clear') await baton.endSessions({ sessions: ids });
    return null;
  }
  const { idleSeconds, leaseSeconds } = baton.config;
  const quiet = mine.some((s) => ctx.now - Date.parse(s.lastActiveAt ?? s.startedAt) >= activityWriteMs(idleSeconds));
  if (input.event === 'tool' && (quiet || held.some((c) => ctx.now - Date.parse(c.lastRenewedAt) >= (leaseSeconds * 1000) / 6))) {
    await baton.renewLeases({ sessions: ids, active: true });
  } else if (quiet) {
    await baton.markActive({ sessions: ids });
  }

  if (input.tells) {
    const notices = await baton.leaseNotices({ sessions: ids });
    if (notices.ok && notices.value.notices.length > 0) return { kind: 'lost', text: noticesText(notices.value.notices) };
  }
  if (input.event === 'stop' && !input.continuing) {
    const unsaved = uncheckpointed(held, baton.config.checkpointNudgeSeconds, ctx.now);
    if (unsaved.length > 0) return { kind: 'nudge', text: stopReason(unsaved) };
  }
  return null;
}

/** Live leases whose holder has not checkpointed within `nudgeSeconds` (0: never asked). */
function uncheckpointed(held: readonly ClaimView[], nudgeSeconds: number, now: number): ClaimView[] {
  if (nudgeSeconds === 0) return [];
  return held.filter((c) => {
    const at = c.checkpoint ? Date.parse(c.checkpoint.at) : Number.NEGATIVE_INFINITY;
    // A checkpoint from before this claim was someone else's, or an earlier session's.
    return at < Date.parse(c.claimedAt) || now - at >= nudgeSeconds * 1000;
  });
}

function stopReason(unsaved: readonly ClaimView[]): string {
  const keys = unsaved.map((c) => c.key).join(', ');
  return (
    `Baton: you still hold ${keys} and have not checkpointed it lately. Before you stop, call checkpoint ` +
    `(what is done, what is next), then done, submit_for_review or release, so that the issue does not sit claimed while nobody works on it.`
  );
}
