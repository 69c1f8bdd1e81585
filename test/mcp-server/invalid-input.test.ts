import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { type SpawnedServer, spawnServer } from '../helpers/spawnServer.js';
import { call, ok } from '../helpers/tools.js';

let repo: ScratchRepo;
let server: SpawnedServer;
let token: string;

beforeAll(async () => {
  repo = makeRepo();
  server = await spawnServer({ cwd: repo.main, env: { BATON_AGENT: 'fuzzer' } });
  await ok(server.client, 'create_issue', { title: 'target' });
  token = (await ok(server.client, 'next_issue')).lease.claimToken;
});
afterAll(async () => {
  await server.close();
  repo.remove();
});

const long = (n: number) => 'x'.repeat(n);
const KEY = 'BAT-1';

/** [tool, arguments, the field the refusal must name]; the claimToken is filled in where `TOKEN` stands. */
const CASES: Array<[string, Record<string, unknown>, string]> = [
  ['create_issue', {}, 'title'],
  ['create_issue', { title: '' }, 'title'],
  ['create_issue', { title: '   ' }, 'title'],
  ['create_issue', { title: long(201) }, 'title'],
  ['create_issue', { title: 42 }, 'title'],
  ['create_issue', { title: null }, 'title'],
  ['create_issue', { title: 'ok', body: long(65_537) }, 'body'],
  ['create_issue', { title: 'ok', priority: 5 }, 'priority'],
  ['create_issue', { title: 'ok', priority: -1 }, 'priority'],
  ['create_issue', { title: 'ok', priority: 1.5 }, 'priority'],
  ['create_issue', { title: 'ok', priority: '1' }, 'priority'],
  ['create_issue', { title: 'ok', labels: 'backend' }, 'labels'],
  ['create_issue', { title: 'ok', labels: Array.from({ length: 33 }, (_, i) => `l${i}`) }, 'labels'],
  ['create_issue', { title: 'ok', labels: [long(65)] }, 'labels.0'],
  ['create_issue', { title: 'ok', labels: [''] }, 'labels.0'],
  ['create_issue', { title: 'ok', blockedBy: ['nope'] }, 'blockedBy.0'],
  ['create_issue', { title: 'ok', parent: 'BAT1' }, 'parent'],
  ['create_issue', { title: 'ok', colour: 'red' }, '(arguments)'],
  ['update_issue', { key: KEY, status: 'closed' }, 'status'],
  ['update_issue', { title: 'no key' }, 'key'],
  ['get_issue', { key: 'BAT_1' }, 'key'],
  ['get_issue', { key: '' }, 'key'],
  ['get_issue', { key: ['BAT-1'] }, 'key'],
  ['comment', { key: KEY, text: long(16_385) }, 'text'],
  ['comment', { key: KEY, text: '' }, 'text'],
  ['checkpoint', { key: KEY, claimToken: 'TOKEN', note: long(16_385) }, 'note'],
  ['checkpoint', { key: KEY, claimToken: 'TOKEN' }, 'note'],
  ['checkpoint', { key: KEY, claimToken: 'TOKEN', note: 'n', state: [1, 2] }, 'state'],
  ['checkpoint', { key: KEY, claimToken: 'TOKEN', note: 'n', state: 'saved' }, 'state'],
  ['checkpoint', { key: KEY, claimToken: 'TOKEN', note: 'n', state: { blob: long(65_536) } }, 'state'],
  ['heartbeat', { key: KEY, claimToken: '' }, 'claimToken'],
  ['heartbeat', { key: KEY }, 'claimToken'],
  ['heartbeat', { key: KEY, claimToken: 7 }, 'claimToken'],
  ['release', { key: KEY, claimToken: 'TOKEN', note: long(16_385) }, 'note'],
  ['done', { key: KEY, claimToken: 'TOKEN', summary: long(16_385) }, 'summary'],
  ['submit_for_review', { key: KEY, claimToken: 'TOKEN' }, 'summary'],
  ['review', { key: KEY, claimToken: 'TOKEN', verdict: 'maybe' }, 'verdict'],
  ['next_issue', { role: 'boss' }, 'role'],
  ['next_issue', { requestId: long(201) }, 'requestId'],
  ['next_batch', {}, 'max'],
  ['next_batch', { max: 0 }, 'max'],
  ['next_batch', { max: 51 }, 'max'],
  ['next_batch', { max: '3' }, 'max'],
  ['claim_issue', { key: KEY, role: 'owner' }, 'role'],
  ['check_claim', { key: 12 }, 'key'],
  ['list_issues', { limit: 0 }, 'limit'],
  ['list_issues', { limit: 1001 }, 'limit'],
  ['list_issues', { status: 'open' }, 'status'],
  ['list_issues', { ready: 'yes' }, 'ready'],
  ['relate', { key: KEY, type: 'duplicates', other: 'BAT-2' }, 'type'],
  ['relate', { key: KEY, type: 'blocks' }, 'other'],
  ['list_claims', { all: true }, '(arguments)'],
  ['activity', { limit: 1001 }, 'limit'],
];

describe('bad input', () => {
  it.each(CASES.map(([tool, args, field]) => [tool, JSON.stringify(args).slice(0, 60), args, field] as const))(
    '%s %s is INVALID_INPUT naming the field',
    async (tool, _shown, args, field) => {
      const filled = Object.fromEntries(Object.entries(args).map(([k, v]) => [k, v === 'TOKEN' ? token : v]));
      const answer = await call(server.client, tool, filled);
      expect(answer.isError).toBe(true);
      expect(answer.structured.error.code).toBe('INVALID_INPUT');
      expect(answer.structured.error.issues.map((i: { path: string }) => i.path)).toContain(field);
      expect(answer.text).toContain('INVALID_INPUT');
    },
  );

  it('takes a token of any length as input and answers one that is not live with CLAIM_LOST', async () => {
    const answer = await call(server.client, 'heartbeat', { key: KEY, claimToken: long(100_000) });
    expect(answer.isError).toBe(true);
    expect(answer.structured.error).toMatchObject({ code: 'CLAIM_LOST', reason: 'never issued' });
  });

  it('answers a call without any arguments with INVALID_INPUT', async () => {
    const result = await server.client.callTool({ name: 'get_issue' });
    expect(result.isError).toBe(true);
    expect((result.structuredContent as { error: { code: string } }).error.code).toBe('INVALID_INPUT');
  });

  it('stores none of it and keeps serving', async () => {
    const issues = await ok(server.client, 'list_issues');
    expect(issues.issues.map((i: { key: string }) => i.key)).toEqual(['BAT-1']);
    const detail = await ok(server.client, 'get_issue', { key: KEY });
    expect(detail.comments).toEqual([]);
    expect(detail.checkpoint).toBeNull();
    expect(detail.issue).toMatchObject({ status: 'doing', priority: 2, labels: [], body: '' });
    expect((await ok(server.client, 'check_claim', { key: KEY, claimToken: token })).youHold).toBe(true);
    expect((await ok(server.client, 'create_issue', { title: 'still serving' })).issue.key).toBe('BAT-2');
  });
});
