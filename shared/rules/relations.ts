import type { Tx } from '../store/store.js';
import type { RelationType } from '../types.js';
import { fail, ok, type Result } from '../result.js';
import { lockRelationGraph } from './graph-lock.js';
import { placeholders } from './rows.js';

/**
 * Relations as stored: `blocks` rows (from blocks to), `relates` rows (one per pair,
 * either direction) and `issues.parent_id`. `blockedBy` is a `blocks` row read backwards.
 */

async function keyOf(tx: Tx, id: number): Promise<string> {
  return (await tx.get<{ key: string }>('SELECT key FROM issues WHERE id = ?', [id]))?.key ?? String(id);
}

/** The chain of keys by which `to` already reaches `from` through `blocks`, or null. */
async function blockingPath(tx: Tx, from: number, to: number): Promise<number[] | null> {
  const cameFrom = new Map<number, number>([[to, to]]);
  let frontier = [to];
  while (frontier.length > 0) {
    if (cameFrom.has(from)) break;
    const edges = await tx.all<{ from_id: number; to_id: number }>(
      `SELECT from_id, to_id FROM relations WHERE type = 'blocks' AND from_id IN (${placeholders(frontier.length)})`,
      frontier,
    );
    frontier = [];
    for (const e of edges) {
      const next = Number(e.to_id);
      if (!cameFrom.has(next)) {
        cameFrom.set(next, Number(e.from_id));
        frontier.push(next);
      }
    }
  }
  if (!cameFrom.has(from)) return null;
  const path = [from];
  for (let at = from; at !== to; at = cameFrom.get(at)!) path.unshift(cameFrom.get(at)!);
  return path;
}

/** Refuses `from blocks to` when it would close a loop; the path names the loop in keys. */
export async function checkBlockingCycle(tx: Tx, from: number, to: number): Promise<Result<void>> {
  if (from === to) {
    const key = await keyOf(tx, from);
    return fail('CYCLE', `${key} cannot block itself.`, { path: [key, key] });
  }
  const path = await blockingPath(tx, from, to);
  if (!path) return ok(undefined);
  const keys = [await keyOf(tx, from)];
  for (const id of path) keys.push(await keyOf(tx, id));
  return fail('CYCLE', `That would make a dependency cycle: ${keys.join(' → ')}.`, { path: keys });
}

/** Refuses making `parent` the parent of `child` when `child` is already above `parent`. */
async function checkParentCycle(tx: Tx, child: number, parent: number): Promise<Result<void>> {
  const chain = [parent];
  for (let at: number | null = parent; at !== null; ) {
    if (at === child) {
      const keys = [await keyOf(tx, child)];
      for (const id of chain) keys.push(await keyOf(tx, id));
      return fail('CYCLE', `That would make a parent cycle: ${keys.join(' → ')}.`, { path: keys });
    }
    const row: { parent_id: number | null } | undefined = await tx.get('SELECT parent_id FROM issues WHERE id = ?', [at]);
    at = row?.parent_id === null || row?.parent_id === undefined ? null : Number(row.parent_id);
    if (at !== null) chain.push(at);
  }
  return ok(undefined);
}

/**
 * Recomputes the effective priority of `ids` and of every issue that transitively blocks
 * them: the best priority among an issue and all it transitively blocks.
 */
export async function refreshEffectivePriority(tx: Tx, ids: readonly number[]): Promise<void> {
  const affected = new Set<number>(ids);
  let frontier = [...ids];
  while (frontier.length > 0) {
    const up = await tx.all<{ from_id: number }>(
      `SELECT from_id FROM relations WHERE type = 'blocks' AND to_id IN (${placeholders(frontier.length)})`,
      frontier,
    );
    frontier = [];
    for (const { from_id } of up) {
      const id = Number(from_id);
      if (!affected.has(id)) {
        affected.add(id);
        frontier.push(id);
      }
    }
  }
  // In ascending ids: two transactions refreshing overlapping sets of issues then lock
  // their rows in the same order, so one waits for the other instead of both deadlocking.
  for (const id of [...affected].sort((a, b) => a - b)) {
    const best = await bestPriorityBelow(tx, id);
    await tx.run('UPDATE issues SET eff_priority = ? WHERE id = ? AND eff_priority <> ?', [best, id, best]);
  }
}

/** The best priority among an issue and every issue it transitively blocks: its effective priority. */
export async function bestPriorityBelow(tx: Tx, id: number): Promise<number> {
  const best = await tx.get<{ p: number }>(
    `WITH RECURSIVE down(id) AS (
       SELECT CAST(? AS BIGINT)
       UNION SELECT r.to_id FROM relations r JOIN down ON r.from_id = down.id WHERE r.type = 'blocks'
     ) SELECT min(i.priority) AS p FROM issues i JOIN down ON i.id = down.id`,
    [id],
  );
  return Number(best!.p);
}

/**
 * Adds or removes one relation of `key`; `other` is the far end. Takes the graph lock
 * (see graph-lock.ts) if the caller has not already, which it should have done before
 * locking any issue row.
 */
export async function changeRelation(
  tx: Tx,
  issue: number,
  type: RelationType,
  other: number,
  remove: boolean,
): Promise<Result<{ changed: boolean }>> {
  await lockRelationGraph(tx);
  if (type === 'parent') {
    if (remove) {
      const r = await tx.run('UPDATE issues SET parent_id = NULL WHERE id = ? AND parent_id = ?', [issue, other]);
      return ok({ changed: r.changes > 0 });
    }
    const cycle = await checkParentCycle(tx, issue, other);
    if (!cycle.ok) return cycle;
    const r = await tx.run('UPDATE issues SET parent_id = ? WHERE id = ? AND (parent_id IS NULL OR parent_id <> ?)', [other, issue, other]);
    return ok({ changed: r.changes > 0 });
  }
  if (type === 'relatesTo') {
    if (issue === other) return fail('INVALID_INPUT', 'An issue cannot relate to itself.', { issues: [{ path: 'other', message: 'same as key' }] });
    const [a, b] = issue < other ? [issue, other] : [other, issue];
    if (remove) {
      const r = await tx.run(`DELETE FROM relations WHERE type = 'relates' AND from_id = ? AND to_id = ?`, [a, b]);
      return ok({ changed: r.changes > 0 });
    }
    const r = await tx.run(`INSERT INTO relations (type, from_id, to_id) VALUES ('relates', ?, ?) ON CONFLICT DO NOTHING`, [a, b]);
    return ok({ changed: r.changes > 0 });
  }
  const [from, to] = type === 'blocks' ? [issue, other] : [other, issue];
  if (remove) {
    const r = await tx.run(`DELETE FROM relations WHERE type = 'blocks' AND from_id = ? AND to_id = ?`, [from, to]);
    if (r.changes > 0) await refreshEffectivePriority(tx, [from]);
    return ok({ changed: r.changes > 0 });
  }
  const cycle = await checkBlockingCycle(tx, from, to);
  if (!cycle.ok) return cycle;
  const r = await tx.run(`INSERT INTO relations (type, from_id, to_id) VALUES ('blocks', ?, ?) ON CONFLICT DO NOTHING`, [from, to]);
  if (r.changes > 0) await refreshEffectivePriority(tx, [from]);
  return ok({ changed: r.changes > 0 });
}
