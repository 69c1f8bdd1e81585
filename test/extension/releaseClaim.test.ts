import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BatonSource } from '../../extension/model/batonSource.js';
import { buildTree } from '../../extension/model/buildTree.js';
import { releaseSeenClaim, seenClaim } from '../../extension/model/releaseClaim.js';
import type { ModelState } from '../../extension/model/snapshot.js';
import type { ClaimNode } from '../../extension/model/treeNodes.js';
import type { Opened } from '../../shared/open.js';
import { openAgent } from '../helpers/core.js';

let repo: string;
const opened: Array<{ close(): Promise<void> }> = [];
const env = { PATH: process.env.PATH } as NodeJS.ProcessEnv;

const agent = (name: string): Promise<Opened> => openAgent(repo, name, env, opened);

/** The editor's view of the store now, and the claim row it shows for the issue. */
async function view(): Promise<{ source: BatonSource; state: ModelState; row: ClaimNode }> {
  const source = new BatonSource({ cwd: repo, renewer: 'vscode:test', env });
  opened.push({ close: async () => source.dispose() });
  const state = await source.load();
  if (state.kind !== 'ready') throw new Error(state.kind);
  const claimed = buildTree(state.snapshot, { now: Date.now(), warningSeconds: 300, renewer: 'vscode:test', isAlive: () => true })[0];
  return { source, state, row: claimed.children[0] as ClaimNode };
}

beforeEach(async () => {
  repo = mkdtempSync(join(tmpdir(), 'baton-release-'));
  execFileSync('git', ['init', '-q', repo]);
  await (await agent('agent-A')).baton.createIssue({ title: 'Contended' });
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((o) => o.close()));
  rmSync(repo, { recursive: true, force: true });
});

describe('releasing the claim a person saw', () => {
  it('leaves alone a claim another agent took while the question was open', async () => {
    const a = await agent('agent-A');
    const claimedByA = await a.baton.claimIssue({ key: 'BAT-1' });
    if (!claimedByA.ok) throw new Error(claimedByA.error.message);
    const { source, state, row } = await view();
    expect(row.fence).toBe(claimedByA.value.lease.fence);

    await a.baton.release({ key: 'BAT-1', claimToken: claimedByA.value.lease.claimToken! });
    const b = await agent('agent-B');
    const claimedByB = await b.baton.claimIssue({ key: 'BAT-1' });
    if (!claimedByB.ok) throw new Error(claimedByB.error.message);

    const baton = await source.baton();
    if (!baton.ok) throw new Error(baton.error.message);
    for (const arg of [row, 'BAT-1']) {
      const result = await releaseSeenClaim(baton.value, seenClaim(arg, 'BAT-1', state));
      expect(result).toEqual({ ok: true, value: { released: false, message: 'Baton: BAT-1 is now held by agent-B; nothing released.' } });
    }
    expect((await b.baton.heartbeat({ key: 'BAT-1', claimToken: claimedByB.value.lease.claimToken! })).ok).toBe(true);
  });

  it('releases the claim shown, which its holder then loses', async () => {
    const a = await agent('agent-A');
    const claimed = await a.baton.claimIssue({ key: 'BAT-1' });
    if (!claimed.ok) throw new Error(claimed.error.message);
    const { source, state, row } = await view();
    const baton = await source.baton();
    if (!baton.ok) throw new Error(baton.error.message);
    expect(seenClaim(row, 'BAT-1', state)).toEqual({ key: 'BAT-1', agent: 'agent-A', fence: claimed.value.lease.fence });
    expect(await releaseSeenClaim(baton.value, seenClaim(row, 'BAT-1', state))).toEqual({ ok: true, value: { released: true, message: 'Baton: released BAT-1.' } });
    expect(await a.baton.heartbeat({ key: 'BAT-1', claimToken: claimed.value.lease.claimToken! })).toMatchObject({ ok: false, error: { code: 'CLAIM_LOST' } });
    expect(await releaseSeenClaim(baton.value, seenClaim(row, 'BAT-1', state))).toEqual({ ok: true, value: { released: false, message: 'Baton: BAT-1 had no live lease.' } });
  });
});
