import { createConnection } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writerSocketFor } from '../../shared/forwarding/socket-path.js';
import { type Opened, openBaton } from '../../shared/open.js';
import { LazyFileStore } from '../../shared/store/file-access.js';
import { value } from '../helpers/core.js';
import { waitFor } from '../helpers/spawnServer.js';
import { storeScratch } from './store/store-scratch.js';

const scratch = storeScratch('thin', 'baton.db');
const opened: Opened[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

type Served = Opened & { store: LazyFileStore };

/** A server's core as `baton serve` opens it. */
async function serve(agent: string): Promise<Served> {
  const result = await openBaton({ cwd: scratch.dir, db: scratch.path, env: {}, caller: { agent, worktree: null }, forward: true });
  if (!result.ok) throw new Error(result.error.message);
  opened.push(result.value);
  if (!(result.value.store instanceof LazyFileStore)) throw new Error('a server of a file database opens it lazily');
  return result.value as Served;
}

/** The writer, then two servers that find it: one of them stands by with a copy, the other holds none. */
async function three(): Promise<{ writer: Served; standby: Served; thin: Served }> {
  const writer = await serve('alice');
  const b = await serve('bob');
  const c = await serve('carol');
  // Each server offers to stand by once it reaches the writer, with its first call.
  value(await b.baton.listClaims());
  value(await c.baton.listClaims());
  await waitFor(() => [b, c].filter((s) => s.store.opened).length === 1, 5000, 'one standby');
  return b.store.opened ? { writer, standby: b, thin: c } : { writer, standby: c, thin: b };
}

describe('a server while another writes for it', () => {
  it('holds no copy of the database, one standby apart: its reads and writes run in the writer', async () => {
    const { writer, standby, thin } = await three();
    expect(writer.store.opened).toBeDefined();
    const created = value(await thin.baton.createIssue({ title: 'one' }));
    const claimed = value(await thin.baton.claimIssue({ key: created.issue.key }));
    expect(value(await thin.baton.getIssue({ key: created.issue.key })).issue.status).toBe('doing');
    expect(value(await thin.baton.listClaims()).claims.map((c) => c.key)).toEqual([created.issue.key]);
    // The session's plain tokens stay in its own process and travel with each call.
    value(await thin.baton.heartbeat({ key: created.issue.key, claimToken: claimed.lease.claimToken! }));
    expect(value(await thin.baton.issueStatuses([created.issue.key])).get(created.issue.key)).toBe('doing');
    expect(thin.store.opened).toBeUndefined();
    expect(thin.followable()).toBe(false);
    // What it wrote is the writer's, and the standby's, too.
    expect(value(await writer.baton.getIssue({ key: created.issue.key })).issue.status).toBe('doing');
    expect(value(await standby.baton.getIssue({ key: created.issue.key })).issue.status).toBe('doing');
  });

  it('asks the writer for its lost leases in the request of the call itself, and is told of a loss once', async () => {
    const { writer, standby, thin } = await three();
    const key = value(await thin.baton.createIssue({ title: 'one' })).issue.key;
    value(await thin.baton.claimIssue({ key }));
    value(await writer.baton.releaseAsOperator({ key }));
    const first = thin.baton.forCall();
    expect(value(await first.core.getIssue({ key })).issue.key).toBe(key);
    expect(value(await first.notices()).notices).toEqual([expect.objectContaining({ key, kind: 'lease_lost', reason: 'released' })]);
    const second = thin.baton.forCall();
    value(await second.core.listClaims());
    // Nothing left to tell, and nothing more to ask: with the writer and its standby gone,
    // the notices of this call are still answered, without this server opening the database.
    await standby.close();
    await writer.close();
    opened.splice(0, opened.length, thin);
    expect(value(await second.notices()).notices).toEqual([]);
    expect(thin.store.opened).toBeUndefined();
  });

  it('lets the standby take the place of a writer that has gone, losing nothing', async () => {
    const { writer, standby, thin } = await three();
    const created = value(await thin.baton.createIssue({ title: 'one' }));
    await writer.close();
    opened.splice(opened.indexOf(writer), 1);
    expect(value(await thin.baton.getIssue({ key: created.issue.key })).issue.title).toBe('one');
    // The standby writes now; the thin server offers to stand by in its place.
    expect(value(await standby.baton.createIssue({ title: 'two' })).issue.key).not.toBe(created.issue.key);
    await waitFor(() => thin.store.opened !== undefined, 5000, 'a new standby');
    const later = await serve('dave');
    expect(value(await later.baton.listIssues({})).issues.map((i) => i.title).sort()).toEqual(['one', 'two']);
    expect(later.store.opened).toBeUndefined();
  });

  it('has the standby take the place of a writer that has gone at once, with no call of its own', async () => {
    const { writer, standby, thin } = await three();
    const created = value(await thin.baton.createIssue({ title: 'one' }));
    const socket = writerSocketFor(scratch.path)!;
    await writer.close();
    opened.splice(opened.indexOf(writer), 1);
    // Nobody calls: the standby notices the writer's connection drop and takes its place.
    await waitFor(() => listening(socket), 5000, 'the standby listening in the writer\'s place');
    expect(value(await thin.baton.getIssue({ key: created.issue.key })).issue.title).toBe('one');
  });

  it('opens the database itself when the writer has gone and nobody stands by', async () => {
    const { writer, standby, thin } = await three();
    const created = value(await thin.baton.createIssue({ title: 'one' }));
    await standby.close();
    await writer.close();
    opened.splice(0, opened.length, thin);
    expect(thin.store.opened).toBeUndefined();
    expect(value(await thin.baton.getIssue({ key: created.issue.key })).issue.title).toBe('one');
    expect(thin.store.opened).toBeDefined();
  });
});

/** Whether a server accepts connections at `path`. */
function listening(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
