import { describe, expect, it } from 'vitest';
import { harness, MINUTE, value } from '../helpers/core.js';

/** Rules of docs/protocol.md, "Liveness", on the core (run on PostgreSQL too, test/postgres/core-rules.test.ts). */
describe('liveness in the core', () => {
  async function claimed() {
    const h = await harness();
    const alice = h.session('alice');
    value(await alice.registerSession({ pid: process.pid, host: 'here' }));
    value(await alice.createIssue({ title: 'write the parser' }));
    const lease = value(await alice.claimIssue({ key: 'BAT-1' })).lease;
    return { h, alice, lease: { key: lease.key, claimToken: lease.claimToken! } };
  }

  it('records activity with a heartbeat, with markActive, and not with a renewer’s renewal', async () => {
    const { h, alice, lease } = await claimed();
    const activeAt = async () => value(await alice.listClaims()).claims[0].lastActiveAt;
    const start = await activeAt();
    h.clock.advance(MINUTE);
    value(await h.session('watchdog').renewLeases({ sessions: [alice.caller.session] }));
    expect(await activeAt()).toBe(start);
    value(await alice.heartbeat(lease));
    expect(Date.parse((await activeAt())!)).toBe(Date.parse(start!) + MINUTE);
    h.clock.advance(MINUTE);
    value(await alice.markActive());
    expect(Date.parse((await activeAt())!)).toBe(Date.parse(start!) + 2 * MINUTE);
    h.clock.advance(MINUTE);
    value(await h.session('hook').renewLeases({ sessions: [alice.caller.session], active: true }));
    expect(Date.parse((await activeAt())!)).toBe(Date.parse(start!) + 3 * MINUTE);
  });

  it('tells a session once of a lease a person released, and never of one it released itself', async () => {
    const { h, alice, lease } = await claimed();
    value(await alice.createIssue({ title: 'second' }));
    const own = value(await alice.claimIssue({ key: 'BAT-2' })).lease;
    value(await alice.release({ key: own.key, claimToken: own.claimToken! }));
    h.clock.advance(MINUTE);
    value(await h.session('dana').releaseAsOperator({ key: lease.key }));
    expect(value(await alice.leaseNotices()).notices).toEqual([{ key: 'BAT-1', kind: 'lease_lost', reason: 'released', by: 'dana', at: expect.any(String) }]);
    expect(value(await alice.leaseNotices()).notices).toEqual([]);
  });

  it('tells of a lease that expired and was claimed by another, naming who cleared it', async () => {
    const { h, alice } = await claimed();
    h.clock.advance(31 * MINUTE);
    value(await h.session('bob').claimIssue({ key: 'BAT-1' }));
    expect(value(await alice.leaseNotices()).notices).toEqual([expect.objectContaining({ key: 'BAT-1', reason: 'expired', by: 'bob' })]);
  });
});
