import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawnServer.js';
import { call } from '../helpers/tools.js';

let repo: ScratchRepo;
const servers: SpawnedServer[] = [];
/** Every answer each session received, as sent. */
const transcripts = new Map<string, string[]>();
/** Every token issued, and the session it was issued to. */
const issued = new Map<string, string>();

async function serve(session: string, agent: string, cwd = repo.main) {
  const server = await spawnServer({ cwd, env: { BATON_AGENT: agent } });
  servers.push(server);
  transcripts.set(session, []);
  return server;
}

/** Calls a tool, keeps the answer in the session's transcript and notes any token it was given. */
async function use(session: string, client: Client, name: string, args: Record<string, unknown> = {}) {
  const answer = await call(client, name, args);
  transcripts.get(session)!.push(answer.raw);
  const leases = [answer.structured.lease, ...(answer.structured.items ?? []).map((i: { lease: unknown }) => i.lease)];
  for (const lease of leases) if (lease?.claimToken && !issued.has(lease.claimToken)) issued.set(lease.claimToken, session);
  return answer.structured;
}

const ALL_TOOLS = [
  'next_issue', 'next_batch', 'claim_issue', 'check_claim', 'heartbeat', 'checkpoint', 'release', 'done',
  'submit_for_review', 'review', 'create_issue', 'update_issue', 'get_issue', 'list_issues', 'relate',
  'comment', 'list_claims', 'activity',
];

beforeAll(async () => {
  repo = makeRepo({ worktrees: ['wt-secret'] });
  const alice = (await serve('alice', 'alice')).client;
  const bob = (await serve('bob', 'bob', repo.worktrees[0])).client;
  const eve = (await serve('eve', 'eve')).client;
  for (const title of ['one', 'two', 'three']) await use('alice', alice, 'create_issue', { title });

  const a = await use('alice', alice, 'next_issue');
  await use('alice', alice, 'checkpoint', { key: a.issue.key, claimToken: a.lease.claimToken, note: 'alice was here' });
  await use('alice', alice, 'heartbeat', { key: a.issue.key, claimToken: a.lease.claimToken });
  const b = await use('bob', bob, 'next_batch', { max: 2 });
  const [b1, b2] = b.items;
  await use('bob', bob, 'submit_for_review', { key: b2.issue.key, claimToken: b2.lease.claimToken, summary: 'please look' });

  // A restart of alice: a new session takes her lease over with the old token.
  const alice2 = (await serve('alice2', 'alice')).client;
  await use('alice2', alice2, 'claim_issue', { key: a.issue.key, claimToken: a.lease.claimToken });
  await use('alice2', alice2, 'get_issue', { key: a.issue.key });

  // An observer calls every tool, presenting other sessions' tokens wherever a token goes.
  const stolen = { key: b1.issue.key, claimToken: b1.lease.claimToken };
  const calls: Array<[string, Record<string, unknown>]> = [
    ['next_issue', {}],
    ['next_batch', { max: 5 }],
    ['claim_issue', { key: a.issue.key }],
    ['claim_issue', stolen],
    ['check_claim', stolen],
    ['heartbeat', stolen],
    ['checkpoint', { ...stolen, note: 'eve' }],
    ['release', stolen],
    ['done', stolen],
    ['submit_for_review', { ...stolen, summary: 'eve' }],
    ['review', { key: b2.issue.key, claimToken: a.lease.claimToken, verdict: 'approve' }],
    ['create_issue', { title: 'eve made this' }],
    ['update_issue', { key: b1.issue.key, body: 'eve edits' }],
    ['get_issue', { key: a.issue.key }],
    ['get_issue', { key: b1.issue.key }],
    ['list_issues', {}],
    ['relate', { key: b1.issue.key, type: 'relatesTo', other: a.issue.key }],
    ['comment', { key: a.issue.key, text: 'eve says hi' }],
    ['list_claims', {}],
    ['activity', { limit: 1000 }],
  ];
  for (const [name, args] of calls) await use('eve', eve, name, args);
  for (const session of ['alice', 'bob', 'alice2']) {
    const client = session === 'bob' ? bob : session === 'alice' ? alice : alice2;
    for (const name of ['list_claims', 'activity', 'list_issues']) await use(session, client, name, name === 'activity' ? { limit: 1000 } : {});
  }
  const resource = await alice2.readResource({ uri: `baton://issue/${a.issue.key}` });
  transcripts.get('alice2')!.push(`resource:${JSON.stringify(resource)}`);
  expect(new Set(calls.map(([name]) => name))).toEqual(new Set(ALL_TOOLS));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  repo.remove();
});

describe('claim token secrecy', () => {
  it('issued tokens to the claiming sessions only', () => {
    expect(new Set(issued.values())).toEqual(new Set(['alice', 'bob', 'alice2']));
    expect(issued.size).toBe(4); // alice's, bob's two, alice's after her restart
  });

  it('shows a token in no answer to any session but the one it was issued to', () => {
    for (const [session, answers] of transcripts) {
      for (const answer of answers) {
        for (const [token, owner] of issued) {
          if (owner !== session) expect(answer.includes(token), `${session} saw ${owner}'s token in ${answer.slice(0, 200)}`).toBe(false);
        }
      }
    }
  });

  it('shows no token at all to a session that never claimed, whatever it presented', () => {
    for (const answer of transcripts.get('eve')!) expect(answer).not.toMatch(/bt_[A-Za-z0-9_-]{20,}/);
  });

  it('shows no token in lists, activity, or the issue resource, even to the holder', () => {
    for (const answers of transcripts.values()) {
      for (const answer of answers.filter((a) => /"(claims|events|issues)"|^resource:/.test(a))) {
        for (const token of issued.keys()) expect(answer).not.toContain(token);
      }
    }
  });

  it('writes no token to any log line', () => {
    for (const server of servers) {
      for (const token of issued.keys()) expect(server.stderr()).not.toContain(token);
    }
  });

  it('keeps no token in the database files', () => {
    const files = readdirSync(join(repo.main, '.git', 'baton'), { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const bytes = readFileSync(join(file.parentPath, file.name));
      for (const token of issued.keys()) expect(bytes.includes(Buffer.from(token)), file.name).toBe(false);
    }
  });
});
