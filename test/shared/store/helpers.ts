import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Store, Tx } from '../../../shared/store/store.js';
import { ok } from '../../../shared/result.js';

/** A scratch folder removed by the returned function. */
export function scratchDir(label: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `baton-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** sha256 of a file's bytes, to prove a refused file was left alone. */
export function sha256(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Inserts an issue row with the real schema's columns; returns its id. */
export async function insertIssue(tx: Tx, number: number, title = `issue ${number}`): Promise<number> {
  await tx.run(
    `INSERT INTO issues (number, key, title, status, priority, eff_priority, created_at, updated_at)
     VALUES (?, ?, ?, 'todo', 2, 2, ?, ?)`,
    [number, `BAT-${number}`, title, tx.now, tx.now],
  );
  const row = await tx.get<{ id: number }>('SELECT id FROM issues WHERE number = ?', [number]);
  return row!.id;
}

/** Adds one comment to issue 1 (creating the issue when missing), as one write. */
export function addComment(store: Store, text: string) {
  return store.write(async (tx) => {
    const issue = await tx.get<{ id: number }>('SELECT id FROM issues WHERE number = 1');
    const id = issue ? issue.id : await insertIssue(tx, 1);
    await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [id, text, 'test', tx.now]);
    return ok(id);
  });
}

/** The texts of every comment, oldest first. */
export function commentTexts(store: Store): Promise<string[]> {
  return store.read(async (tx) => (await tx.all<{ text: string }>('SELECT text FROM comments ORDER BY id')).map((r) => r.text));
}
