import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ok } from '../../shared/result.js';
import { createIssue } from '../../shared/rules/tracking.js';
import { openFileStore } from '../../shared/store/file/index.js';
import { type SpawnedServer, spawnServer, waitFor } from '../helpers/spawnServer.js';
import { scratchDir } from '../shared/store/helpers.js';

/*
 * Eight agents, each its own `baton serve`, work through issues without pause. One of the
 * servers holds the database and answers for the others, which hold none. It is killed
 * outright (SIGKILL) while the others wait on it, twice: the first writer, then the one
 * that took its place. Every call a surviving agent made is answered, no issue is handed
 * to two agents, and every acknowledged done and checkpoint is in the database.
 */

const AGENTS = 8;
const ISSUES = 400;
const KILLS = 2;
const TIME_BOUND_MS = 120_000;

type Answer = Record<string, any>;

interface Ledger {
  /** Every key `next_issue` acknowledged, with the agents it went to. */
  claimed: Map<string, string[]>;
  done: Set<string>;
  checkpoints: Set<string>;
  /** Calls of surviving agents that failed or were refused. */
  failures: string[];
  /** Calls under way, per server. */
  inFlight: Map<number, number>;
}

/** The server listening at the database's socket: it bound the socket under a name of its own holding its pid. */
function writerPid(socket: string, pids: readonly number[]): number | undefined {
  for (const line of readFileSync('/proc/net/unix', 'utf8').split('\n')) {
    const at = line.indexOf(`${socket}-`);
    if (at < 0) continue;
    const pid = Number(line.slice(at + socket.length + 1).split('-')[0]);
    if (pids.includes(pid)) return pid;
  }
  return undefined;
}

describe.skipIf(process.platform !== 'linux')('a writer killed under load', () => {
  let scratch: ReturnType<typeof scratchDir>;
  let dbPath: string;
  const servers: SpawnedServer[] = [];

  beforeAll(async () => {
    scratch = scratchDir('writer-killed');
    dbPath = join(scratch.dir, 'baton.db');
    const store = await openFileStore({ path: dbPath });
    const caller = { agent: 'setup', session: 'setup', renewer: null, worktree: null };
    await store.write(async (tx) => {
      for (let i = 1; i <= ISSUES; i++) {
        const created = await createIssue(tx, caller, 'BAT', { title: `issue ${i}`, priority: i % 5 });
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

  it('answers every waiting call of the thin servers, hands no issue out twice and loses nothing acknowledged', async () => {
    servers.push(...(await Promise.all(Array.from({ length: AGENTS }, (_, i) => spawnServer({ cwd: scratch.dir, args: ['--db', dbPath], env: { BATON_AGENT: `agent-${i}` } })))));
    const ledger: Ledger = { claimed: new Map(), done: new Set(), checkpoints: new Set(), failures: [], inFlight: new Map() };
    const killed = new Set<number>();
    const deadline = Date.now() + TIME_BOUND_MS;
    let stop = false;

    const call = async (server: SpawnedServer, name: string, args: Record<string, unknown>): Promise<Answer | undefined> => {
      ledger.inFlight.set(server.pid, (ledger.inFlight.get(server.pid) ?? 0) + 1);
      try {
        const answer = (await server.client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as Answer;
        if (answer.error && !killed.has(server.pid)) ledger.failures.push(`${name}: ${answer.error.code} ${answer.error.message}`);
        return answer.error ? undefined : answer;
      } catch (error) {
        // The killed server's own calls die with it; any other failing is what this test is about.
        if (!killed.has(server.pid)) ledger.failures.push(`${name}: ${(error as Error).message}`);
        return undefined;
      } finally {
        ledger.inFlight.set(server.pid, ledger.inFlight.get(server.pid)! - 1);
      }
    };

    const loop = async (server: SpawnedServer, agent: string) => {
      for (let n = 0; !stop && !killed.has(server.pid) && Date.now() < deadline; n++) {
        const next = await call(server, 'next_issue', {});
        if (!next?.issue) {
          if (next) break;
          continue;
        }
        const key = next.issue.key as string;
        const claimToken = next.lease.claimToken as string;
        ledger.claimed.set(key, [...(ledger.claimed.get(key) ?? []), agent]);
        if (!(await call(server, 'heartbeat', { key, claimToken }))) continue;
        const note = `${key} by ${agent} #${n}`;
        if (!(await call(server, 'checkpoint', { key, claimToken, note, state: { n } }))) continue;
        ledger.checkpoints.add(note);
        if (await call(server, 'done', { key, claimToken })) ledger.done.add(key);
      }
    };

    const loops = servers.map((server, i) => loop(server, `agent-${i}`));
    const socket = `${dbPath}.sock`;
    const waitingAtKill: number[] = [];
    for (let k = 1; k <= KILLS; k++) {
      await waitFor(() => ledger.done.size >= k * 40, 60_000, `${k * 40} issues done`);
      const live = servers.filter((s) => !killed.has(s.pid)).map((s) => s.pid);
      let writer: number | undefined;
      await waitFor(() => (writer = writerPid(socket, live)) !== undefined, 10_000, 'a writer among the live servers');
      // The others must be waiting on it: a call of theirs under way when it dies.
      await waitFor(() => live.some((pid) => pid !== writer && (ledger.inFlight.get(pid) ?? 0) > 0), 10_000, 'a call under way on a thin server');
      waitingAtKill.push(live.filter((pid) => pid !== writer).reduce((sum, pid) => sum + (ledger.inFlight.get(pid) ?? 0), 0));
      killed.add(writer!);
      process.kill(writer!, 'SIGKILL');
    }
    const doneAtLastKill = ledger.done.size;
    await waitFor(() => ledger.done.size >= doneAtLastKill + 40, 60_000, 'work going on after the last kill');
    stop = true;
    await Promise.all(loops);

    expect(waitingAtKill.every((n) => n > 0)).toBe(true);
    expect(ledger.failures).toEqual([]);
    for (const [key, agents] of ledger.claimed) expect(agents, `${key} handed out twice`).toHaveLength(1);

    const store = await openFileStore({ path: dbPath });
    try {
      const db = await store.read(async (tx) => ({
        done: new Set((await tx.all<{ key: string }>(`SELECT key FROM issues WHERE status = 'done'`)).map((r) => r.key)),
        notes: new Set((await tx.all<{ note: string }>('SELECT note FROM checkpoints')).map((r) => r.note)),
        doneTwice: await tx.all<{ key: string }>(`SELECT key FROM events WHERE type = 'done' GROUP BY key HAVING count(*) > 1`),
      }));
      for (const key of ledger.done) expect(db.done.has(key), `acknowledged done of ${key} lost`).toBe(true);
      for (const note of ledger.checkpoints) expect(db.notes.has(note), `acknowledged checkpoint "${note}" lost`).toBe(true);
      expect(db.doneTwice).toEqual([]);
    } finally {
      await store.close();
    }
  }, 180_000);
});
