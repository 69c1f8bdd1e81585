import type { Tx } from '../store/store.js';
import type { Checkpoint, GitState } from '../types.js';
import { touchIssue } from './issues.js';
import { type CheckpointRow, placeholders, toCheckpoint } from './rows.js';

/** What one checkpoint records besides its issue and time. */
export interface NewCheckpoint {
  note: string;
  state: unknown;
  agent: string;
  git: GitState | null;
}

/** Appends a checkpoint to the issue's history, written now, and makes it the issue's latest. */
export async function addCheckpoint(tx: Tx, issueId: number, input: NewCheckpoint): Promise<Checkpoint> {
  const state = input.state === undefined ? null : JSON.stringify(input.state);
  const git = input.git === null ? null : JSON.stringify(input.git);
  const row = (await tx.get<CheckpointRow>(
    'INSERT INTO checkpoints (issue_id, note, state, agent, git, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
    [issueId, input.note, state, input.agent, git, tx.now],
  ))!;
  // A checkpoint is progress: the count of expiries in a row that makes an issue stuck starts over.
  await touchIssue(tx, issueId, { checkpoint_id: row.id, expiry_streak: 0 });
  return toCheckpoint(row);
}

/** The checkpoints with these ids, by id, in one read. */
export async function checkpointsById(tx: Tx, ids: readonly number[]): Promise<Map<number, Checkpoint>> {
  if (ids.length === 0) return new Map();
  const rows = await tx.all<CheckpointRow>(`SELECT * FROM checkpoints WHERE id IN (${placeholders(ids.length)})`, [...ids]);
  return new Map(rows.map((r) => [Number(r.id), toCheckpoint(r)]));
}
