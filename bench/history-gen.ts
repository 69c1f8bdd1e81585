import type { Tx } from '../shared/store/store.js';

/** The shape of a generated history: eight agents, each finishing `cyclesPerHour` issues an hour. */
export interface HistoryShape {
  agents: number;
  cyclesPerHour: number;
  checkpointsPerCycle: number;
  /** Bytes of each checkpoint's `state` (JSON), the bulk of a busy agent's history. */
  stateBytes: number;
  renewalsPerCycle: number;
}

const HOUR_MS = 3_600_000;

/**
 * Writes one simulated hour of finished work into the database, as the rules would have
 * left it: per cycle one issue (done), its token (ended, with its renewals counted), its
 * checkpoints, its activity events and the done summary as a comment, with times spread
 * over the hour. Rows, not calls: an hour of eight busy agents is generated in one
 * transaction instead of replayed in real time.
 */
export async function writeHour(tx: Tx, shape: HistoryShape, hourStart: number, random: () => number): Promise<void> {
  // Issues others created meanwhile (a probe) took their numbers from the same counter.
  let number = Number((await tx.get<{ value: string }>(`SELECT value FROM meta WHERE name = 'next_number'`))!.value);
  const slot = HOUR_MS / shape.cyclesPerHour;
  const state = JSON.stringify({ plan: 'x'.repeat(Math.max(0, shape.stateBytes - 20)) });
  for (let c = 0; c < shape.cyclesPerHour; c++) {
    for (let a = 0; a < shape.agents; a++) {
      const start = hourStart + Math.floor(c * slot + random() * slot * 0.1);
      const end = start + Math.floor(slot * 0.9);
      const key = `BAT-${number}`;
      const agent = `agent-${a}`;
      const worktree = `/work/wt-${a}`;
      const issue = await tx.get<{ id: number }>(
        `INSERT INTO issues (number, key, title, body, status, priority, eff_priority, labels, parent_id, fence, reclaim_count, checkpoint_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, 'done', 2, 2, '[]', NULL, 1, 0, NULL, ?, ?) RETURNING id`,
        [number, key, `Generated issue ${number}`, 'A generated issue of the retention benchmark.', start, end],
      );
      const id = Number(issue!.id);
      const hash = `${number.toString(16)}${Math.floor(random() * 2 ** 48).toString(16)}`.padEnd(43, '0');
      await tx.run(
        `INSERT INTO tokens (hash, issue_id, fence, agent, session, state, ended_at, worktree, renewer, started_at, renewals, renewed_from, renewed_to)
         VALUES (?, ?, 1, ?, ?, 'finished', ?, ?, 'vscode:bench', ?, ?, ?, ?)`,
        [hash, id, agent, `session-${a}`, end, worktree, start, shape.renewalsPerCycle, start + 60_000, end - 60_000],
      );
      await event(tx, id, key, 'created', 'planner', `Generated issue ${number}`, start);
      await event(tx, id, key, 'claimed', agent, 'worker claim, fence 1', start);
      let checkpointId = 0;
      for (let k = 0; k < shape.checkpointsPerCycle; k++) {
        const at = start + Math.floor(((k + 1) * (end - start)) / (shape.checkpointsPerCycle + 1));
        const note = `step ${k + 1} of ${shape.checkpointsPerCycle}: tests for the parser pass, next the printer`;
        const row = await tx.get<{ id: number }>(
          'INSERT INTO checkpoints (issue_id, note, state, agent, git, at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
          [id, note, state, agent, JSON.stringify({ head: 'f'.repeat(40), branch: `baton/bat-${number}`, dirty: ['src/parser.ts', 'test/parser.test.ts'] }), at],
        );
        checkpointId = Number(row!.id);
        await event(tx, id, key, 'checkpoint', agent, note, at);
      }
      await tx.run('INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [id, 'Done: parser and printer, with tests.', agent, end]);
      await event(tx, id, key, 'done', agent, 'done: parser and printer, with tests.', end);
      await tx.run('UPDATE issues SET checkpoint_id = ? WHERE id = ?', [checkpointId, id]);
      number++;
    }
  }
  await tx.run(`UPDATE meta SET value = ? WHERE name = 'next_number'`, [String(number)]);
}

async function event(tx: Tx, issueId: number, key: string, type: string, agent: string, detail: string, at: number): Promise<void> {
  await tx.run('INSERT INTO events (issue_id, key, type, agent, detail, at) VALUES (?, ?, ?, ?, ?, ?)', [issueId, key, type, agent, detail, at]);
}
