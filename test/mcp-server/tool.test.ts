import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../shared/errors.js';
import { harness } from '../helpers/core.js';
import { inProcessServer } from '../helpers/inProcessServer.js';
import { call, ok } from '../helpers/tools.js';

describe('tool answers (in process)', () => {
  it('answers STORE_UNAVAILABLE when the core cannot be opened, and judges bad input first', async () => {
    const server = await inProcessServer(async () => {
      throw new StoreUnavailableError('/repo/.git/baton/baton.db', 'locked past the wait limit');
    });
    const unavailable = await call(server.client, 'list_issues');
    expect(unavailable.isError).toBe(true);
    expect(unavailable.structured.error).toMatchObject({
      code: 'STORE_UNAVAILABLE',
      path: '/repo/.git/baton/baton.db',
      reason: 'locked past the wait limit',
    });
    expect(unavailable.text).toContain('Nothing changed');
    expect((await call(server.client, 'get_issue', {})).structured.error.code).toBe('INVALID_INPUT');
    await server.close();
  });

  it('tells the server of every lease a call claimed or renewed, and of no other', async () => {
    const h = await harness();
    const server = await inProcessServer(h.session('alice'));
    await ok(server.client, 'create_issue', { title: 'one' });
    await ok(server.client, 'create_issue', { title: 'two' });
    const claim = await ok(server.client, 'next_issue');
    await ok(server.client, 'heartbeat', { key: claim.issue.key, claimToken: claim.lease.claimToken });
    await ok(server.client, 'checkpoint', { key: claim.issue.key, claimToken: claim.lease.claimToken, note: 'n' });
    await ok(server.client, 'next_batch', { max: 5 });
    await ok(server.client, 'get_issue', { key: claim.issue.key });
    await ok(server.client, 'list_claims');
    expect(server.touched.map((l) => l.key)).toEqual(['BAT-1', 'BAT-1', 'BAT-1', 'BAT-2']);
    await server.close();
  });

  it('renders a refusal as text with its code and what to do next', async () => {
    const h = await harness();
    const server = await inProcessServer(h.session('alice'));
    await ok(server.client, 'create_issue', { title: 'one' });
    const answer = await call(server.client, 'heartbeat', { key: 'BAT-1', claimToken: 'bt_nothing' });
    expect(answer.text).toMatch(/^CLAIM_LOST: .*next_issue/);
    await server.close();
  });

  it('answers { issue: null } when nothing is ready, which the outputSchema admits', async () => {
    const h = await harness();
    const server = await inProcessServer(h.session('alice'));
    const answer = await call(server.client, 'next_issue');
    expect(answer).toMatchObject({ isError: false, structured: { issue: null }, text: 'Nothing is ready to claim.' });
    await server.close();
  });
});
