import { afterEach, describe, expect, it } from 'vitest';
import { type Opened, openBaton } from '../../shared/open.js';
import { LazyFileStore } from '../../shared/store/file/index.js';
import { value } from '../helpers/core.js';
import { storeScratch } from './store/store-scratch.js';

const scratch = storeScratch('thin', 'baton.db');
const opened: Opened[] = [];
afterEach(async () => {
  for (const o of opened.splice(0)) await o.close();
});

/** A server's core as `baton serve` opens it. */
async function serve(agent: string): Promise<Opened & { store: LazyFileStore }> {
  const result = await openBaton({ cwd: scratch.dir, db: scratch.path, env: {}, caller: { agent, worktree: null }, forward: true });
  if (!result.ok) throw new Error(result.error.message);
  opened.push(result.value);
  if (!(result.value.store instanceof LazyFileStore)) throw new Error('a server of a file database opens it lazily');
  return result.value as Opened & { store: LazyFileStore };
}

describe('a server while another writes for it', () => {
  it('holds no copy of the database: its reads and writes run in the writer', async () => {
    const writer = await serve('alice');
    expect(writer.store.opened).toBeDefined();
    const thin = await serve('bob');
    const created = value(await thin.baton.createIssue({ title: 'one' }));
    const claimed = value(await thin.baton.claimIssue({ key: created.issue.key }));
    expect(value(await thin.baton.getIssue({ key: created.issue.key })).issue.status).toBe('doing');
    expect(value(await thin.baton.listClaims()).claims.map((c) => c.key)).toEqual([created.issue.key]);
    // The session's own tokens stay in its own process: its heartbeat needs no token from the caller's store.
    value(await thin.baton.heartbeat({ key: created.issue.key, claimToken: claimed.lease.claimToken! }));
    const statuses = value(await thin.baton.issueStatuses([created.issue.key]));
    expect(statuses.get(created.issue.key)).toBe('doing');
    expect(thin.store.opened).toBeUndefined();
    expect(thin.followable()).toBe(false);
    // What it wrote is the writer's too.
    expect(value(await writer.baton.getIssue({ key: created.issue.key })).issue.status).toBe('doing');
  });

  it('opens the database and writes itself once the writer has gone, losing nothing', async () => {
    const writer = await serve('alice');
    const thin = await serve('bob');
    const created = value(await thin.baton.createIssue({ title: 'one' }));
    expect(thin.store.opened).toBeUndefined();
    await writer.close();
    opened.splice(opened.indexOf(writer), 1);
    expect(value(await thin.baton.getIssue({ key: created.issue.key })).issue.title).toBe('one');
    expect(thin.store.opened).toBeDefined();
    const later = await serve('carol');
    expect(later.store.opened).toBeUndefined();
    expect(value(await later.baton.listIssues({})).issues.map((i) => i.key)).toEqual([created.issue.key]);
  });
});
