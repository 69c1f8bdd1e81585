import { ok, type Result } from '../result.js';
import { issueHistory, type SessionRow } from '../rules/history.js';
import { findIssue } from '../rules/issues.js';
import { getLease, isLive } from '../rules/leases.js';
import { type EventRow, iso, type LeaseRow, type TokenRow } from '../rules/rows.js';
import type { Tx } from '../store/store.js';
import type { Status } from '../types.js';
import { expiryCause } from './causes.js';
import { foldedLine } from './folded.js';

/** One event of an issue's story: when, what kind, who, from which worktree, and what it means. */
export interface StoryLine {
  at: string;
  kind: string;
  agent: string;
  worktree: string | null;
  text: string;
}

export interface Story {
  key: string;
  title: string;
  status: Status;
  lines: StoryLine[];
}

/**
 * An issue's story in order (`baton why`, the editor's Show History). It is built from
 * what the store keeps, not from a log of its own: the activity log gives each event;
 * the token of each holding (one per claim or takeover) gives its worktree, renewer and
 * renewal count, so a holding's renewals make one line however many there were; the
 * session records tell what became of a holder's server; folded history gives one line
 * for what retention summarised.
 */
export async function buildStory(tx: Tx, key: string): Promise<Result<Story>> {
  const found = await findIssue(tx, key);
  if (!found.ok) return found;
  const issue = found.value;
  const { events, tokens, folded, sessions } = await issueHistory(tx, issue.id);
  const lease = await getLease(tx, issue.id);

  const timed: { at: number; order: number; line: StoryLine }[] = [];
  const add = (at: number, order: number, line: Omit<StoryLine, 'at'>) => timed.push({ at, order, line: { at: iso(at), ...line } });
  const fold = foldedLine(folded);
  if (fold) add(fold.at, -1, fold.line);

  // The holding an event of `agent` at `at` belongs to, for its worktree.
  const holdingAt = (agent: string, at: number) =>
    tokens.find((t) => t.agent === agent && t.started_at !== null && Number(t.started_at) <= at && (t.ended_at === null || Number(t.ended_at) >= at));
  for (const event of events) {
    const at = Number(event.at);
    const holding = event.type === 'reclaimed' ? endedAt(tokens, at, 'reclaimed') : holdingAt(event.agent, at);
    const worktree = event.type === 'refused' ? null : (holding?.worktree ?? null);
    add(at, Number(event.id), { kind: event.type, agent: event.agent, worktree, text: eventText(event, holding, sessions, events) });
  }
  for (const token of tokens) {
    if (Number(token.renewals) > 0 && token.renewed_from !== null) {
      add(Number(token.renewed_from), Number.MAX_SAFE_INTEGER, renewalLine(token.agent, token.worktree, token.renewer, Number(token.renewals), Number(token.renewed_from), Number(token.renewed_to)));
    }
  }
  if (isLive(lease, tx.now)) {
    if (Number(lease.renewals) > 0 && lease.renewed_from !== null) {
      add(Number(lease.renewed_from), Number.MAX_SAFE_INTEGER, renewalLine(lease.agent, lease.worktree, lease.renewer, Number(lease.renewals), Number(lease.renewed_from), Number(lease.last_renewed_at)));
    }
    add(tx.now, Number.MAX_SAFE_INTEGER, holdsLine(lease));
  }
  timed.sort((a, b) => a.at - b.at || a.order - b.order);
  return ok({ key: issue.key, title: issue.title, status: issue.status, lines: timed.map((t) => t.line) });
}

function endedAt(tokens: TokenRow[], at: number, state: string): TokenRow | undefined {
  return tokens.find((t) => t.state === state && Number(t.ended_at) === at);
}

function eventText(event: EventRow, holding: TokenRow | undefined, sessions: SessionRow[], events: EventRow[]): string {
  switch (event.type) {
    case 'reclaimed':
      return holding ? `${event.detail}; ${expiryCause(holding, sessions, events)}` : event.detail;
    case 'checkpoint':
      return `checkpoint: ${event.detail}`;
    case 'renewal_stopped':
      return `renewal stopped: ${event.detail}`;
    default:
      return event.detail;
  }
}

/** `HH:MM:SS` of a time, in UTC as every time Baton shows. */
export function clockTime(ms: number): string {
  return iso(ms).slice(11, 19);
}

function renewalLine(agent: string, worktree: string | null, renewer: string | null, renewals: number, from: number, to: number): Omit<StoryLine, 'at'> {
  const span = renewals === 1 ? `at ${clockTime(from)}` : `between ${clockTime(from)} and ${clockTime(to)}`;
  return { kind: 'renewed', agent, worktree, text: `renewed ${renewals}× by ${renewer ?? `${agent} (heartbeats and checkpoints)`} ${span}` };
}

function holdsLine(lease: LeaseRow): Omit<StoryLine, 'at'> {
  return {
    kind: 'holding',
    agent: lease.agent,
    worktree: lease.worktree,
    text: `holds it now: fence ${lease.fence}, expires at ${iso(Number(lease.expires_at))}${lease.renewer ? `, renewed by ${lease.renewer}` : ', no renewer'}`,
  };
}
