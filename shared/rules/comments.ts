import type { Tx } from '../store/store.js';
import type { Comment } from '../types.js';
import { recordEvent } from './activity.js';
import { type CommentRow, toComment } from './rows.js';

/** Adds a comment; comments are never edited or removed. */
export async function addComment(tx: Tx, issue: { id: number; key: string }, agent: string, text: string): Promise<Comment> {
  const row = (await tx.get<CommentRow>('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?) RETURNING *', [issue.id, text, agent, tx.now]))!;
  await recordEvent(tx, issue, 'commented', agent, text.length > 120 ? `${text.slice(0, 117)}...` : text);
  return toComment(row);
}

/** Every comment of an issue, oldest first. */
export async function listComments(tx: Tx, issueId: number): Promise<Comment[]> {
  const rows = await tx.all<CommentRow>('SELECT * FROM comments WHERE issue_id = ? ORDER BY id', [issueId]);
  return rows.map(toComment);
}
