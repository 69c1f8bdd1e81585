import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../shared/result.js';
import { createIssue } from '../../shared/rules/tracking.js';
import { openFileStore } from '../../shared/store/file/index.js';
import { join } from 'node:path';
import { type SpawnedServer, spawnServer } from '../helpers/spawnServer.js';
import { scratchDir } from '../shared/store/helpers.js';
import { sleep } from '../helpers/wait.js';
import { seededRandom } from '../helpers/random.js';

/*
 * Sixteen agents, each its own `baton serve` process over stdio, loop claim, heartbeat,
 * checkpoint, done over 2,000 issues until the queue is empty, within a time bound. Now
 * and then an agent walks away from an issue (its lease expires and another agent
 * resumes it from the checkpoint) and comes back late trying to finish it anyway.
 * Afterwards every issue is done exactly once, by exactly one acknowledged `done`, and
 * every acknowledged checkpoint is in the database.
 */

const AGENTS = Number(process.env.BATON_LOAD_AGENTS ?? 16);
const ISSUES = Number(process.env.BATON_LOAD_ISSUES ?? 2_000);
const TIME_BOUND_MS = Number(process.env.BATON_LOAD_MS ?? 150_000);
const LEASE_SECONDS = 3;

type Answer = Record<string, any>;

interface Ledger {
  done: Map<string, string[]>;
  checkpoints: Set<string>;
  resumed: number;
  lateDoneRefused: number;
  abandoned: number;
  refusals: Map<string, number>;
}

async function call(server: SpawnedServer, name: string, args: Record<string, unknown>): Promise<Answer> {
  const answer = await server.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 });
  return answer.structuredContent as Answer;
}

/** One agent's loop; `remaining` says when every issue is done. */
async function agentLoop(agent: string, server: SpawnedServer, ledger: Ledger, remaining: () => number, deadline: number, random: () => number): Promise<void> {
  const late: Promise<void>[] = [];
  const refused = (code: string) => ledger.refusals.set(code, (ledger.refusals.get(code) ?? 0) + 1);
  for (let n = 0; remaining() > 0 && Date.now() < deadline; n++) {
    const next = await call(server, 'next_issue', {});
    if (next.error) {
      refused(next.error.code);
      continue;
    }
    if (!next.issue) {
      // Everything left is held by someone; leases of abandoned issues run out soon.
      await sleep(200);
      continue;
    }
    const key = next.issue.key as string;
    const claimToken = next.lease.claimToken as string;
    if (next.resumed) ledger.resumed++;
    const beat = await call(server, 'heartbeat', { key, claimToken });
    if (beat.error) {
      refused(beat.error.code);
      continue;
    }
    const note = `${key} by ${agent} #${n}`;
    const saved = await call(server, 'checkpoint', { key, claimToken, note, state: { agent, n } });
    if (saved.error) {
      refused(saved.error.code);
      continue;
    }
    ledger.checkpoints.add(note);
    // Now and then, and at least once in a run, walk away; come back after the lease ran out and try to finish anyway.
    if ((agent === 'agent-0' && ledger.abandoned === 0) || random() < 0.01) {
      ledger.abandoned++;
      late.push(
        sleep(LEASE_SECONDS * 1000 + 500).then(async () => {
          const tooLate = await call(server, 'done', { key, claimToken, summary: 'too late' });
          expect(tooLate.error?.code, `${agent} finished ${key} after its lease ran out`).toBe('CLAIM_LOST');
          ledger.lateDoneRefused++;
        }),
      );
      continue;
    }
    const finished = await call(server, 'done', { key, claimToken });
    if (finished.error) {
      refused(finished.error.code);
      continue;
    }
    ledger.done.set(key, [...(ledger.done.get(key) ?? []), agent]);
  }
  await Promise.all(late);
}

describe('load', () => {
  // Outside git, so that the time goes to leases and the store rather than to `git status`
  // for each checkpoint (the fault and security tests run servers inside worktrees).
  let scratch: ReturnType<typeof scratchDir>;
  let dbPath: string;
  const servers: SpawnedServer[] = [];

  beforeAll(async () => {
    scratch = scratchDir('load');
    dbPath = join(scratch.dir, 'baton.db');
    // The issues, created by the rules in one transaction, before any agent starts.
    const store = await openFileStore({ path: dbPath });
    const caller = { agent: 'setup', session: 'setup', renewer: null, worktree: null };
    await store.write(async (tx) => {
      for (let i = 1; i <= ISSUES; i++) {
        const created = await createIssue(tx, caller, 'BAT', { title: `load issue ${i}`, priority: i % 5 });
        if (!created.ok) return created;
      }
      return ok(undefined);
    });
    await store.close();
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close().catch(() => {})));
    scratch.remove();
  });

  it(`${AGENTS} agent processes finish ${ISSUES} issues, each exactly once, keeping every checkpoint`, async () => {
    const env = { BATON_LEASE_SECONDS: String(LEASE_SECONDS), BATON_SWEEP_MS: '3000' };
    servers.push(...(await Promise.all(Array.from({ length: AGENTS }, (_, i) => spawnServer({ cwd: scratch.dir, args: ['--db', dbPath], env: { ...env, BATON_AGENT: `agent-${i}` } })))));
    const random = seededRandom('load: walking away');
    const ledger: Ledger = { done: new Map(), checkpoints: new Set(), resumed: 0, lateDoneRefused: 0, abandoned: 0, refusals: new Map() };
    const started = Date.now();
    const deadline = started + TIME_BOUND_MS;
    await Promise.all(servers.map((server, i) => agentLoop(`agent-${i}`, server, ledger, () => ISSUES - ledger.done.size, deadline, random)));
    const seconds = (Date.now() - started) / 1000;

    // Every server is still up, and nothing ended early.
    for (const server of servers) expect(() => process.kill(server.pid, 0), server.stderr()).not.toThrow();
    for (const [key, agents] of ledger.done) expect(agents, `${key} acknowledged done more than once`).toHaveLength(1);
    expect(ledger.done.size, `only ${ledger.done.size} of ${ISSUES} done in ${seconds}s`).toBe(ISSUES);

    const store = await openFileStore({ path: dbPath });
    const db = await store.read(async (tx) => ({
      statuses: await tx.all<{ status: string; n: number }>('SELECT status, count(*) AS n FROM issues GROUP BY status'),
      doneEvents: await tx.all<{ key: string; n: number }>(`SELECT key, count(*) AS n FROM events WHERE type = 'done' GROUP BY key HAVING count(*) <> 1`),
      doneKeys: (await tx.get<{ n: number }>(`SELECT count(DISTINCT key) AS n FROM events WHERE type = 'done'`))!.n,
      notes: (await tx.all<{ note: string }>('SELECT note FROM checkpoints')).map((r) => r.note),
      live: await tx.all(`SELECT issue_id FROM tokens WHERE state = 'live' GROUP BY issue_id HAVING count(*) > 1`),
      reclaimed: (await tx.get<{ n: number }>(`SELECT count(*) AS n FROM events WHERE type = 'reclaimed'`))!.n,
    }));
    await store.close();
    expect(db.statuses).toEqual([{ status: 'done', n: ISSUES }]);
    expect(db.doneEvents).toEqual([]);
    expect(db.doneKeys).toBe(ISSUES);
    expect(db.live).toEqual([]);
    // Every acknowledged checkpoint is there, and nothing else was written as one.
    expect(db.notes.length).toBe(ledger.checkpoints.size);
    expect(db.notes.filter((note) => !ledger.checkpoints.has(note))).toEqual([]);
    expect(ledger.abandoned).toBeGreaterThan(0);
    expect(ledger.lateDoneRefused).toBe(ledger.abandoned);
    console.error(
      `load: ${AGENTS} agents, ${ISSUES} issues in ${seconds.toFixed(1)}s (${((ISSUES * 4) / seconds).toFixed(0)} lease calls/s); ` +
        `${ledger.checkpoints.size} checkpoints, ${ledger.abandoned} abandoned, ${db.reclaimed} reclaimed, ${ledger.resumed} resumed, ` +
        `late dones refused ${ledger.lateDoneRefused}; refusals ${JSON.stringify(Object.fromEntries(ledger.refusals))}`,
    );
  }, TIME_BOUND_MS + 60_000);
});
