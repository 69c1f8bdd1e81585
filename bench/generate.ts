import { ok } from '../shared/result.js';
import type { SqlValue, Store, Tx } from '../shared/store/store.js';
import { bestPriorityBelow } from '../shared/rules/relations.js';

/**
 * Fills an empty Baton database with `count` issues the way a busy repository looks:
 * titles, ~500-byte bodies, labels, comments, `blocks` dependencies on earlier issues,
 * a third of them already done. Rows are written through the store in large write
 * transactions of multi-row INSERTs, so the result is an ordinary Baton database
 * (snapshot and log on the file store) that every process can open.
 *
 * Effective priorities are computed here the way the rules do: the best priority among
 * an issue and everything it transitively blocks. Dependencies only point from an older
 * issue to a newer one, so one pass from the newest issue back settles them.
 */

const WORDS = (
  'retry cache index lease token branch worker queue parser schema migration timeout socket buffer render ' +
  'layout config loader bundle client server session review checkpoint commit snapshot replay compaction ' +
  'watcher signal handler fallback metric trace sample counter budget window limit guard flaky crash leak ' +
  'stale race deadlock order priority label filter cursor page list detail tree status badge command'
).split(' ');
const VERBS = ['Fix', 'Add', 'Remove', 'Refactor', 'Speed up', 'Document', 'Test', 'Harden', 'Split', 'Rename'];
const LABELS = ['bug', 'feature', 'docs', 'perf', 'ui', 'api', 'store', 'cli', 'ci', 'security', 'infra', 'good-first-issue'];

/** A small seeded generator (mulberry32): the same seed always builds the same database. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function pick<T>(random: () => number, list: readonly T[]): T {
  return list[Math.floor(random() * list.length)];
}

function words(random: () => number, bytes: number): string {
  const out: string[] = [];
  let length = 0;
  while (length < bytes) {
    const word = pick(random, WORDS);
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

interface PlannedIssue {
  number: number;
  title: string;
  body: string;
  status: 'todo' | 'done';
  priority: number;
  effPriority: number;
  labels: string[];
  /** Numbers of earlier issues that block this one. */
  blockedBy: number[];
  comments: string[];
  createdAt: number;
}

/** What the database will hold, decided before anything is written. */
export function planIssues(count: number, seed: number, now: number): PlannedIssue[] {
  const random = seeded(seed);
  const spanMs = 90 * 24 * 3600 * 1000;
  const issues: PlannedIssue[] = [];
  for (let n = 1; n <= count; n++) {
    const labelCount = Math.floor(random() * 4);
    const labels = [...new Set(Array.from({ length: labelCount }, () => pick(random, LABELS)))];
    const blockedBy: number[] = [];
    if (n > 10 && random() < 0.1) {
      const blockers = 1 + Math.floor(random() * 2);
      for (let b = 0; b < blockers; b++) {
        const blocker = n - 1 - Math.floor(random() * Math.min(300, n - 1));
        if (!blockedBy.includes(blocker)) blockedBy.push(blocker);
      }
    }
    const comments = random() < 0.3 ? Array.from({ length: 1 + Math.floor(random() * 3) }, () => words(random, 150)) : [];
    const priority = Math.min(4, Math.floor(random() * random() * 5 + 1));
    issues.push({
      number: n,
      title: `${pick(random, VERBS)} ${words(random, 30)}`.slice(0, 120),
      body: words(random, 500),
      // Older issues are more often done already.
      status: random() < 0.5 * (1 - n / count) + 0.1 ? 'done' : 'todo',
      priority,
      effPriority: priority,
      labels,
      blockedBy,
      comments,
      createdAt: now - spanMs + Math.floor((spanMs * n) / (count + 1)),
    });
  }
  for (let i = issues.length - 1; i >= 0; i--) {
    for (const blocker of issues[i].blockedBy) {
      const b = issues[blocker - 1];
      b.effPriority = Math.min(b.effPriority, issues[i].effPriority);
    }
  }
  return issues;
}

/** `INSERT INTO table (cols) VALUES (?, ?), (?, ?)…` for `rows` rows. */
function multiInsert(table: string, columns: readonly string[], rows: number): string {
  const tuple = `(${columns.map(() => '?').join(', ')})`;
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${Array.from({ length: rows }, () => tuple).join(', ')}`;
}

async function insertRows(tx: Tx, table: string, columns: readonly string[], rows: SqlValue[][]): Promise<void> {
  // 40 rows of at most 14 columns stays far below SQLite's limit on placeholders.
  for (let at = 0; at < rows.length; at += 40) {
    const chunk = rows.slice(at, at + 40);
    await tx.run(multiInsert(table, columns, chunk.length), chunk.flat());
  }
}

const ISSUE_INSERT = ['number', 'key', 'title', 'body', 'status', 'priority', 'eff_priority', 'labels', 'parent_id', 'fence', 'reclaim_count', 'checkpoint_id', 'created_at', 'updated_at'];

/** Writes the planned issues in transactions of `batch` issues; answers how long it took. */
export async function generateIssues(
  store: Store,
  count: number,
  options: { seed?: number; batch?: number; prefix?: string; onProgress?: (done: number) => void } = {},
): Promise<{ ms: number; issues: number }> {
  const started = performance.now();
  const prefix = options.prefix ?? 'BAT';
  const plan = planIssues(count, options.seed ?? 1, Date.now());
  const idOf = new Map<number, number>();
  const batch = options.batch ?? 2000;
  for (let from = 0; from < plan.length; from += batch) {
    const slice = plan.slice(from, from + batch);
    const written = await store.write(async (tx) => {
      await insertRows(
        tx,
        'issues',
        ISSUE_INSERT,
        slice.map((p) => [p.number, `${prefix}-${p.number}`, p.title, p.body, p.status, p.priority, p.effPriority, JSON.stringify(p.labels), null, 0, 0, null, p.createdAt, p.createdAt]),
      );
      const ids = await tx.all<{ id: number; number: number }>('SELECT id, number FROM issues WHERE number >= ? AND number <= ?', [slice[0].number, slice[slice.length - 1].number]);
      for (const row of ids) idOf.set(Number(row.number), Number(row.id));
      const id = (n: number) => idOf.get(n)!;
      await insertRows(tx, 'issue_labels', ['label', 'issue_id'], slice.flatMap((p) => p.labels.map((l) => [l, id(p.number)])));
      await insertRows(tx, 'relations', ['type', 'from_id', 'to_id'], slice.flatMap((p) => p.blockedBy.map((b) => ['blocks', id(b), id(p.number)])));
      await insertRows(tx, 'comments', ['issue_id', 'text', 'agent', 'at'], slice.flatMap((p) => p.comments.map((c, i) => [id(p.number), c, 'seed', p.createdAt + i + 1])));
      const events: SqlValue[][] = [];
      for (const p of slice) {
        const key = `${prefix}-${p.number}`;
        events.push([id(p.number), key, 'created', 'seed', p.title, p.createdAt]);
        p.comments.forEach((c, i) => events.push([id(p.number), key, 'commented', 'seed', c.slice(0, 120), p.createdAt + i + 1]));
        if (p.status === 'done') events.push([id(p.number), key, 'status', 'seed', 'todo → done', p.createdAt + 10]);
      }
      await insertRows(tx, 'events', ['issue_id', 'key', 'type', 'agent', 'detail', 'at'], events);
      await tx.run(`UPDATE meta SET value = ? WHERE name = 'next_number'`, [String(slice[slice.length - 1].number + 1)]);
      return ok(undefined);
    });
    if (!written.ok) throw new Error(`generation failed: ${written.error.message}`);
    options.onProgress?.(Math.min(from + batch, plan.length));
  }
  return { ms: performance.now() - started, issues: count };
}

/**
 * Checks a sample of effective priorities against the rules' own recursive query, so a
 * generated database dispatches exactly as one built through create_issue would.
 */
export async function checkEffectivePriorities(store: Store, sample: number): Promise<number> {
  return store.read(async (tx) => {
    // Blockers are where a wrong effective priority would show.
    const rows = await tx.all<{ id: number; eff_priority: number }>(
      `SELECT id, eff_priority FROM issues WHERE id IN (SELECT from_id FROM relations WHERE type = 'blocks') ORDER BY id LIMIT ?`,
      [sample],
    );
    let wrong = 0;
    for (const row of rows) {
      if ((await bestPriorityBelow(tx, row.id)) !== Number(row.eff_priority)) wrong++;
    }
    return wrong;
  });
}
