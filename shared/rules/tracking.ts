import { fail, ok, type Result } from '../result.js';
import type { Tx } from '../store/store.js';
import type { Caller, Status } from '../types.js';
import { DEFAULT_PRIORITY } from '../limits.js';
import type { CreateIssueInput, UpdateIssueInput } from '../inputs.js';
import { recordEvent } from './activity.js';
import { lockRelationGraph } from './graph-lock.js';
import { findIssue, findIssueById, findIssues, normalizeLabels, touchIssue, writeLabels } from './issues.js';
import { endLease, getLease, holderOf, isLive, type SessionTokens } from './leases.js';
import { refreshEffectivePriority } from './relations.js';
import { iso, type IssueRow } from './rows.js';

/** Creates an issue with the next key of this database. */
export async function createIssue(tx: Tx, caller: Caller, prefix: string, input: CreateIssueInput): Promise<Result<IssueRow>> {
  // With relations, the new issue joins the graph: the blockers' effective priorities are
  // refreshed from it, which must not interleave with another change to the graph.
  if ((input.blockedBy ?? []).length > 0 || input.parent !== undefined) await lockRelationGraph(tx);
  const blockers = await findIssues(tx, input.blockedBy ?? []);
  if (!blockers.ok) return blockers;
  const parent = input.parent === undefined ? null : await findIssue(tx, input.parent);
  if (parent && !parent.ok) return parent;

  const counter = await tx.get<{ value: string }>(`SELECT value FROM meta WHERE name = 'next_number'${tx.dialect.forUpdate}`);
  const number = Number(counter!.value);
  await tx.run(`UPDATE meta SET value = ? WHERE name = 'next_number'`, [String(number + 1)]);

  const key = `${prefix.toUpperCase()}-${number}`;
  const labels = normalizeLabels(input.labels ?? []);
  const priority = input.priority ?? DEFAULT_PRIORITY;
  await tx.run(
    `INSERT INTO issues (number, key, title, body, status, priority, eff_priority, labels, parent_id, fence, reclaim_count, checkpoint_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'todo', ?, ?, ?, ?, 0, 0, NULL, ?, ?)`,
    [number, key, input.title.trim(), input.body ?? '', priority, priority, JSON.stringify(labels), parent?.value.id ?? null, tx.now, tx.now],
  );
  const row = (await findIssue(tx, key)) as { ok: true; value: IssueRow };
  const id = row.value.id;
  await writeLabels(tx, id, labels);
  for (const blocker of blockers.value) {
    await tx.run(`INSERT INTO relations (type, from_id, to_id) VALUES ('blocks', ?, ?) ON CONFLICT DO NOTHING`, [blocker.id, id]);
  }
  if (blockers.value.length > 0) await refreshEffectivePriority(tx, blockers.value.map((b) => b.id));
  await recordEvent(tx, row.value, 'created', caller.agent, input.title.trim());
  return ok(await findIssueById(tx, id));
}

/**
 * Edits fields. A status change is refused while another session holds the issue
 * (`ALREADY_CLAIMED`); the holder's own status change away from `doing` ends its lease.
 * Edits never renew a lease.
 */
export async function updateIssue(tx: Tx, caller: Caller, tokens: SessionTokens, input: UpdateIssueInput): Promise<Result<IssueRow>> {
  // A priority change refreshes effective priorities along the graph: the graph lock
  // comes before the issue's row lock.
  if (input.priority !== undefined) await lockRelationGraph(tx);
  const found = await findIssue(tx, input.key, true);
  if (!found.ok) return found;
  const issue = found.value;
  const sets: Record<string, string | number | null> = {};
  const changed: string[] = [];
  if (input.title !== undefined && input.title.trim() !== issue.title) {
    sets.title = input.title.trim();
    changed.push('title');
  }
  if (input.body !== undefined && input.body !== issue.body) {
    sets.body = input.body;
    changed.push('body');
  }
  if (input.priority !== undefined && input.priority !== Number(issue.priority)) {
    sets.priority = input.priority;
    changed.push(`priority ${issue.priority} → ${input.priority}`);
  }
  const labels = input.labels === undefined ? undefined : normalizeLabels(input.labels);
  if (labels !== undefined && JSON.stringify(labels) !== issue.labels) {
    sets.labels = JSON.stringify(labels);
    changed.push('labels');
  }
  const status = input.status !== undefined && input.status !== issue.status ? input.status : undefined;
  if (status !== undefined) {
    const refused = await applyStatusToLease(tx, issue, status, caller, tokens);
    if (!refused.ok) return refused;
    sets.status = status;
    // Moving an issue off stuck by hand gives it a fresh streak, as `baton reopen` does.
    if (issue.status === 'stuck') sets.expiry_streak = 0;
  }
  if (Object.keys(sets).length === 0) return ok(issue);

  await touchIssue(tx, issue.id, sets);
  if (labels !== undefined && sets.labels !== undefined) await writeLabels(tx, issue.id, labels);
  if (sets.priority !== undefined) await refreshEffectivePriority(tx, [issue.id]);
  if (changed.length > 0) await recordEvent(tx, issue, 'updated', caller.agent, changed.join(', '));
  if (status !== undefined) await recordEvent(tx, issue, 'status', caller.agent, `${issue.status} → ${status}`);
  return ok(await findIssueById(tx, issue.id));
}

async function applyStatusToLease(tx: Tx, issue: IssueRow, status: Status, caller: Caller, tokens: SessionTokens): Promise<Result<void>> {
  const lease = await getLease(tx, issue.id);
  if (!isLive(lease, tx.now)) return ok(undefined);
  if (lease.session !== caller.session) {
    return fail('ALREADY_CLAIMED', `${issue.key} is claimed by ${lease.agent} until ${iso(lease.expires_at)}; its status follows the lease.`, {
      holder: holderOf(lease, caller),
      expiresAt: iso(lease.expires_at),
    });
  }
  if (status !== 'doing') {
    await endLease(tx, lease, status === 'todo' ? 'released' : 'finished');
    tokens.forget(issue.key);
  }
  return ok(undefined);
}
