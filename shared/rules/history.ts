import type { Tx } from '../store/store.js';
import { type EventRow, placeholders, type TokenRow } from './rows.js';

/** A row of `history_summary`: what retention folded away of one kind of event. */
export interface SummaryRow {
  issue_id: number;
  type: string;
  count: number;
  first_at: number;
  last_at: number;
}

/** What a session record tells of a holder's server. */
export interface SessionRow {
  id: string;
  pid: number;
  ended_at: number | null;
  renewer: string | null;
}

/** Everything an issue's story is told from (history/story.ts): its events, holdings, folded history and holders' sessions. */
export async function issueHistory(tx: Tx, issueId: number): Promise<{ events: EventRow[]; tokens: TokenRow[]; folded: SummaryRow[]; sessions: SessionRow[] }> {
  const events = await tx.all<EventRow>('SELECT * FROM events WHERE issue_id = ? ORDER BY id', [issueId]);
  const tokens = await tx.all<TokenRow>('SELECT * FROM tokens WHERE issue_id = ? ORDER BY fence, started_at', [issueId]);
  const folded = await tx.all<SummaryRow>('SELECT * FROM history_summary WHERE issue_id = ? ORDER BY first_at', [issueId]);
  const sessionIds = [...new Set(tokens.map((t) => t.session))];
  const sessions = sessionIds.length
    ? await tx.all<SessionRow>(`SELECT id, pid, ended_at, renewer FROM sessions WHERE id IN (${placeholders(sessionIds.length)})`, sessionIds)
    : [];
  return { events, tokens, folded, sessions };
}
