import type { Tx } from '../store/store.js';
import type { Comment } from '../types.js';
import { recordEvent } from './activity.js';
import { type CommentRow, toComment } from './rows.js';

/** Adds a comment; comments are never edited or removed. */
export async function addComment(tx: Tx, issue: { id: number; key: string }, agent: string, text: string): Promise<Comment> {
  await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [issue.id, text, agent, tx.now]);
  const row = await tx.get<CommentRow>('SELECT * FROM comments WHERE issue_id = ? ORDER BY id DESC LIMIT 1', [issue.id]);
  await recordEvent(tx, issue, 'commented', agent, text.length > 120 ? `${text.slice(0, 117)}...` : text);
  return toComment(row!);
}

/** Every comment of an issue, oldest first. */
export async function listComments(tx: Tx, issueId: number): Promise<Comment[]> {
  const rows = await tx.all<CommentRow>('SELECT * FROM comments WHERE issue_id = ? ORDER BY id', [issueId]);
  return rows.map(toComment);
}
