import type { Tx } from '../store/store.js';
import type { Issue, IssueSummary, Relations, Status } from '../types.js';
import { fail, ok, type Result } from '../result.js';
import { stuckReason } from './stuck.js';
import { type CheckpointRow, ISSUE_COLUMNS, type IssueRow, iso, placeholders, toCheckpoint } from './rows.js';

/** Keys are matched without regard to case: `bat-7` names `BAT-7`. */
export function normalizeKey(key: string): string {
  return key.trim().toUpperCase();
}

/** Finds an issue by key; `lock` takes its row for the rest of the transaction (PostgreSQL). */
export async function findIssue(tx: Tx, key: string, lock = false): Promise<Result<IssueRow>> {
  const k = normalizeKey(key);
  const row = await tx.get<IssueRow>(
    `SELECT ${ISSUE_COLUMNS} FROM issues WHERE key = ?${lock ? tx.dialect.forUpdate : ''}`,
    [k],
  );
  return row ? ok(row) : fail('NOT_FOUND', `No issue ${k}.`, { key: k });
}

/**
 * Takes the rows of several issues for the rest of the transaction (PostgreSQL), in
 * ascending id order: two transactions locking the same issues in different orders
 * would deadlock.
 */
export async function lockIssues(tx: Tx, ids: readonly number[]): Promise<void> {
  if (!tx.dialect.forUpdate) return;
  for (const id of [...new Set(ids)].sort((a, b) => a - b)) await tx.get(`SELECT id FROM issues WHERE id = ?${tx.dialect.forUpdate}`, [id]);
}

export async function findIssueById(tx: Tx, id: number): Promise<IssueRow> {
  const row = await tx.get<IssueRow>(`SELECT ${ISSUE_COLUMNS} FROM issues WHERE id = ?`, [id]);
  if (!row) throw new Error(`issue id ${id} vanished inside a transaction`);
  return row;
}

/** Every key, resolved, or `NOT_FOUND` for the first that names no issue. */
export async function findIssues(tx: Tx, keys: readonly string[]): Promise<Result<IssueRow[]>> {
  const rows: IssueRow[] = [];
  for (const key of keys) {
    const found = await findIssue(tx, key);
    if (!found.ok) return found;
    if (!rows.some((r) => r.id === found.value.id)) rows.push(found.value);
  }
  return ok(rows);
}

/** Labels as stored: trimmed, without duplicates, in the order given. */
export function normalizeLabels(labels: readonly string[]): string[] {
  return [...new Set(labels.map((l) => l.trim()).filter((l) => l.length > 0))];
}

export async function writeLabels(tx: Tx, issueId: number, labels: readonly string[]): Promise<void> {
  await tx.run('DELETE FROM issue_labels WHERE issue_id = ?', [issueId]);
  for (const label of labels) {
    await tx.run('INSERT INTO issue_labels (label, issue_id) VALUES (?, ?)', [label, issueId]);
  }
}

/**
 * Every relation of one issue in a single statement: one index search per direction plus
 * the children and the parent, sorted here rather than by SQL. A query per list with its
 * own ORDER BY cost five statements and four sorts per issue answer, and every claim,
 * done and edit answers with the issue. The related issues' keys are read by scalar
 * subqueries, which run only for a relation found: a join opens a cursor on `issues`
 * every time the statement runs, and on sql.js that made this statement, for an issue
 * with no relations, four times as slow.
 */
const RELATIONS_SQL = `SELECT r.type AS kind, 1 AS outgoing,
     (SELECT key FROM issues WHERE id = r.to_id) AS key, (SELECT number FROM issues WHERE id = r.to_id) AS number
   FROM relations r WHERE r.type IN ('blocks', 'relates') AND r.from_id = ?
 UNION ALL
 SELECT r.type, 0, (SELECT key FROM issues WHERE id = r.from_id), (SELECT number FROM issues WHERE id = r.from_id)
   FROM relations r WHERE r.type IN ('blocks', 'relates') AND r.to_id = ?
 UNION ALL
 SELECT 'child', 0, key, number FROM issues WHERE parent_id = ?
 UNION ALL
 SELECT 'parent', 0, key, number FROM issues WHERE id = ?`;

export async function loadRelations(tx: Tx, row: IssueRow): Promise<Relations> {
  const rows = await tx.all<{ kind: string; outgoing: number; key: string; number: number }>(RELATIONS_SQL, [row.id, row.id, row.id, row.parent_id]);
  rows.sort((a, b) => Number(a.number) - Number(b.number));
  const relations: Relations = { blocks: [], blockedBy: [], relatesTo: [], parent: null, children: [] };
  for (const r of rows) {
    if (r.kind === 'blocks') (Number(r.outgoing) === 1 ? relations.blocks : relations.blockedBy).push(r.key);
    else if (r.kind === 'relates') relations.relatesTo.push(r.key);
    else if (r.kind === 'child') relations.children.push(r.key);
    else relations.parent = r.key;
  }
  return relations;
}

/** Keys per statement in `statusesOf`: well inside every backend's limit on parameters. */
const KEYS_PER_STATEMENT = 500;

/** The status of each of `keys` that names an issue, a few hundred keys per statement. */
export async function statusesOf(tx: Tx, keys: readonly string[]): Promise<Map<string, Status>> {
  const statuses = new Map<string, Status>();
  for (let at = 0; at < keys.length; at += KEYS_PER_STATEMENT) {
    const chunk = keys.slice(at, at + KEYS_PER_STATEMENT);
    const rows = await tx.all<{ key: string; status: Status }>(`SELECT key, status FROM issues WHERE key IN (${placeholders(chunk.length)})`, chunk);
    for (const r of rows) statuses.set(r.key, r.status);
  }
  return statuses;
}

export async function loadCheckpoint(tx: Tx, row: IssueRow) {
  if (row.checkpoint_id === null) return null;
  const cp = await tx.get<CheckpointRow>('SELECT * FROM checkpoints WHERE id = ?', [row.checkpoint_id]);
  return cp ? toCheckpoint(cp) : null;
}

/** The full issue as every answer shows it. */
export async function issueView(tx: Tx, row: IssueRow): Promise<Issue> {
  return {
    key: row.key,
    title: row.title,
    body: row.body,
    status: row.status,
    priority: Number(row.priority),
    effectivePriority: Number(row.eff_priority),
    labels: JSON.parse(row.labels) as string[],
    relations: await loadRelations(tx, row),
    checkpoint: await loadCheckpoint(tx, row),
    reclaimCount: Number(row.reclaim_count),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/** Issues as lists show them, with their blockers and whether a live lease holds them, in two queries. */
export async function summaries(tx: Tx, rows: readonly IssueRow[]): Promise<IssueSummary[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const blockers = await tx.all<{ to_id: number; key: string }>(
    `SELECT r.to_id, i.key FROM relations r JOIN issues i ON i.id = r.from_id
     WHERE r.type = 'blocks' AND r.to_id IN (${placeholders(ids.length)}) ORDER BY i.number`,
    ids,
  );
  const held = await tx.all<{ issue_id: number }>(
    `SELECT issue_id FROM leases WHERE expires_at > ? AND issue_id IN (${placeholders(ids.length)})`,
    [tx.now, ...ids],
  );
  const heldIds = new Set(held.map((h) => Number(h.issue_id)));
  return rows.map((row) => ({
    key: row.key,
    title: row.title,
    status: row.status,
    priority: Number(row.priority),
    effectivePriority: Number(row.eff_priority),
    labels: JSON.parse(row.labels) as string[],
    blockedBy: blockers.filter((b) => Number(b.to_id) === row.id).map((b) => b.key),
    held: heldIds.has(row.id),
    ...(row.status === 'stuck' ? { attention: stuckReason(Number(row.expiry_streak)) } : {}),
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  }));
}

/** Unfinished issues that block this one (`BLOCKED` lists them). */
export async function openBlockers(tx: Tx, issueId: number): Promise<string[]> {
  // Sorted here: an ORDER BY makes SQLite build a sorter for what is nearly always no row.
  // A subquery rather than a join, for the reason RELATIONS_SQL gives.
  const rows = await tx.all<{ key: string; number: number }>(
    `SELECT key, number FROM issues
     WHERE id IN (SELECT from_id FROM relations WHERE type = 'blocks' AND to_id = ?) AND status NOT IN ('done', 'cancelled')`,
    [issueId],
  );
  return rows.sort((a, b) => Number(a.number) - Number(b.number)).map((r) => r.key);
}

export async function touchIssue(tx: Tx, id: number, sets: Record<string, string | number | null>): Promise<void> {
  const names = Object.keys(sets);
  await tx.run(`UPDATE issues SET ${names.map((n) => `${n} = ?, `).join('')}updated_at = ? WHERE id = ?`, [
    ...names.map((n) => sets[n]),
    tx.now,
    id,
  ]);
}
