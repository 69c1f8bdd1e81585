import { describe, expect, it } from 'vitest';
import type { GitState } from '../../shared/types.js';
import { harness, MINUTE, value } from '../helpers/core.js';

const A = '/repo/wt-a';
const B = '/repo/wt-b';

function git(dirty: string[], changed?: string[]): GitState {
  return { head: 'a'.repeat(40), branch: 'topic', dirty, ...(changed ? { changed } : {}) };
}

/** Issues BAT-1 and BAT-2, claimed by alice (worktree A) and bob (worktree B) with the git states given. */
async function twoClaims(gitA: GitState, gitB: GitState, worktreeB = B) {
  const h = await harness();
  const admin = h.session('admin');
  value(await admin.createIssue({ title: 'Parser' }));
  value(await admin.createIssue({ title: 'Lexer' }));
  const alice = h.session('alice', { worktree: A, git: gitA });
  const bob = h.session('bob', { worktree: worktreeB, git: gitB });
  const a = value(await alice.claimIssue({ key: 'BAT-1' }));
  const b = value(await bob.claimIssue({ key: 'BAT-2' }));
  return { h, admin, alice, bob, tokenA: a.lease.claimToken!, tokenB: b.lease.claimToken! };
}

describe('overlap warnings', () => {
  it("reports the other live claim whose checkpoint touched the same file, from the branch's changes or the dirty paths", async () => {
    const { admin, alice, bob, tokenA, tokenB } = await twoClaims(git(['notes.md'], ['src/parser.ts', 'README.md']), git(['src/parser.ts', 'src/lexer.ts']));
    expect(value(await alice.checkpoint({ key: 'BAT-1', claimToken: tokenA, note: 'half' })).overlaps).toEqual([]);
    const second = value(await bob.checkpoint({ key: 'BAT-2', claimToken: tokenB, note: 'lexer' }));
    expect(second.overlaps).toEqual([{ key: 'BAT-1', agent: 'alice', worktree: A, files: ['src/parser.ts'] }]);

    const claims = value(await admin.listClaims()).claims;
    const byKey = Object.fromEntries(claims.map((c) => [c.key, c.overlaps]));
    expect(byKey['BAT-1']).toEqual([{ key: 'BAT-2', agent: 'bob', worktree: B, files: ['src/parser.ts'] }]);
    expect(byKey['BAT-2']).toEqual([{ key: 'BAT-1', agent: 'alice', worktree: A, files: ['src/parser.ts'] }]);
    expect(value(await admin.getIssue({ key: 'BAT-1' })).overlaps).toEqual(byKey['BAT-1']);
  });

  it('reports nothing for disjoint paths, for claims in one worktree, or once the other claim ended', async () => {
    const disjoint = await twoClaims(git(['a.ts']), git(['b.ts']));
    value(await disjoint.alice.checkpoint({ key: 'BAT-1', claimToken: disjoint.tokenA, note: 'a' }));
    expect(value(await disjoint.bob.checkpoint({ key: 'BAT-2', claimToken: disjoint.tokenB, note: 'b' })).overlaps).toEqual([]);

    const shared = await twoClaims(git(['a.ts']), git(['a.ts']), A);
    value(await shared.alice.checkpoint({ key: 'BAT-1', claimToken: shared.tokenA, note: 'a' }));
    expect(value(await shared.bob.checkpoint({ key: 'BAT-2', claimToken: shared.tokenB, note: 'b' })).overlaps).toEqual([]);

    const ended = await twoClaims(git(['a.ts']), git(['a.ts']));
    value(await ended.alice.checkpoint({ key: 'BAT-1', claimToken: ended.tokenA, note: 'a' }));
    expect(value(await ended.bob.checkpoint({ key: 'BAT-2', claimToken: ended.tokenB, note: 'b' })).overlaps).toHaveLength(1);
    value(await ended.alice.done({ key: 'BAT-1', claimToken: ended.tokenA }));
    ended.h.clock.advance(MINUTE);
    expect(value(await ended.bob.checkpoint({ key: 'BAT-2', claimToken: ended.tokenB, note: 'c' })).overlaps).toEqual([]);
    expect(value(await ended.admin.listClaims()).claims.map((c) => [c.key, c.overlaps])).toEqual([['BAT-2', []]]);
  });
});
