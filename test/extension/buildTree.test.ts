import { describe, expect, it } from 'vitest';
import { buildTree, type TreeContext, type TreeMemo } from '../../extension/model/buildTree.js';
import type { ClaimNode, GroupNode, IssueNode } from '../../extension/model/treeNodes.js';
import { ManualClock } from '../../shared/clock.js';
import type { SessionRecord } from '../../shared/types.js';
import { claim, issue, iso, session, snapshot, T0, WINDOW } from './fixtures.js';

const alive = new Set<string>();
const clock = new ManualClock(T0);
const ctx = (over: Partial<TreeContext> = {}): TreeContext => ({
  now: clock.now(),
  warningSeconds: 300,
  renewer: WINDOW,
  isAlive: (s: SessionRecord) => alive.has(s.id),
  ...over,
});

const group = (groups: GroupNode[], id: GroupNode['id']) => groups.find((g) => g.id === id);
const keys = (g: GroupNode | undefined) => g?.children.map((c) => c.key);
const claimNode = (groups: GroupNode[], key: string) => group(groups, 'claimed')!.children.find((c) => c.key === key) as ClaimNode;

describe('grouping', () => {
  const snap = snapshot({
    claims: [claim('BAT-1', 600_000)],
    doing: [issue('BAT-1', { status: 'doing', held: true }), issue('BAT-2', { status: 'doing' })],
    ready: [issue('BAT-2', { status: 'doing' }), issue('BAT-3')],
    blocked: [issue('BAT-4', { blockedBy: ['BAT-3'] })],
    review: [issue('BAT-5', { status: 'review' })],
    done: [issue('BAT-9', { status: 'done' })],
  });
  const groups = buildTree(snap, ctx());

  it('shows the groups in order: Claimed, Doing, Ready, Blocked, In review, Done', () => {
    expect(groups.map((g) => g.label)).toEqual(['Claimed', 'Doing (unheld)', 'Ready', 'Blocked', 'In review', 'Done (recent)']);
  });

  it('puts a held issue under Claimed only, and an unheld doing issue under Doing only', () => {
    expect(keys(group(groups, 'claimed'))).toEqual(['BAT-1']);
    expect(keys(group(groups, 'doing'))).toEqual(['BAT-2']);
    expect(keys(group(groups, 'ready'))).toEqual(['BAT-3']);
  });

  it('lists a blocked issue with the unfinished blockers it was given', () => {
    const blocked = group(groups, 'blocked')!.children[0] as IssueNode;
    expect(blocked.key).toBe('BAT-4');
    expect(blocked.blockers).toEqual(['BAT-3']);
    expect(blocked.description).toBe('blocked by BAT-3');
  });

  it('shows every blocked issue it is given, even when its blocker is in none of the (cut) lists', () => {
    const tree = buildTree(snapshot({ blocked: [issue('BAT-2', { blockedBy: ['BAT-1'] })] }), ctx());
    expect(keys(group(tree, 'blocked'))).toEqual(['BAT-2']);
    expect((group(tree, 'blocked')!.children[0] as IssueNode).description).toBe('blocked by BAT-1');
  });

  it('leaves out empty groups, and shows nothing at all without issues', () => {
    expect(buildTree(snapshot({ ready: [issue('BAT-1')] }), ctx()).map((g) => g.id)).toEqual(['ready']);
    expect(buildTree(snapshot(), ctx())).toEqual([]);
  });

  it('says "resumed" for an unheld doing issue with a checkpoint', () => {
    const tree = buildTree(snapshot({ doing: [issue('BAT-2', { status: 'doing' }), issue('BAT-3', { status: 'doing' })], checkpointed: ['BAT-2'] }), ctx());
    const [resumed, plain] = group(tree, 'doing')!.children as IssueNode[];
    expect(resumed).toMatchObject({ key: 'BAT-2', resumed: true, description: 'P2 · resumed' });
    expect(plain).toMatchObject({ key: 'BAT-3', resumed: false, description: 'P2 · unheld' });
  });

  it('marks the groups whose list the store had more of than were read, and no other', () => {
    const cut = buildTree(snapshot({ ...snap, cut: ['ready', 'stuck', 'blocked'], stuck: [issue('BAT-7', { status: 'stuck' })] }), ctx());
    expect(cut.map((g) => [g.id, g.more])).toEqual([
      ['attention', true],
      ['claimed', false],
      ['doing', false],
      ['ready', true],
      ['blocked', true],
      ['review', false],
      ['done', false],
    ]);
    expect(buildTree(snap, ctx()).some((g) => g.more)).toBe(false);
  });

  it('keeps Done collapsed and the other groups open', () => {
    expect(groups.filter((g) => !g.expanded).map((g) => g.id)).toEqual(['done']);
  });
});

describe('rows kept between builds', () => {
  it('builds again only the groups whose lists changed', () => {
    const memo: TreeMemo = new Map();
    const before = snapshot({ ready: [issue('BAT-3')], blocked: [issue('BAT-4', { blockedBy: ['BAT-3'] })], doing: [issue('BAT-2', { status: 'doing' })] });
    const first = buildTree(before, ctx(), memo);
    const next = buildTree({ ...before, ready: [issue('BAT-5')], claims: [claim('BAT-1', 600_000)] }, ctx(), memo);
    expect(group(next, 'blocked')!.children).toBe(group(first, 'blocked')!.children);
    expect(group(next, 'doing')!.children).toBe(group(first, 'doing')!.children);
    expect(keys(group(next, 'ready'))).toEqual(['BAT-5']);
    // A checkpoint found on an unheld issue changes Doing alone.
    const resumed = buildTree({ ...before, checkpointed: ['BAT-2'] }, ctx(), memo);
    expect(group(resumed, 'doing')!.children[0]).toMatchObject({ key: 'BAT-2', resumed: true });
    expect(group(resumed, 'blocked')!.children).toBe(group(first, 'blocked')!.children);
  });
});

describe('order', () => {
  it('keeps Ready in the dispatch order the store gave', () => {
    const ready = [issue('BAT-7', { priority: 0 }), issue('BAT-2'), issue('BAT-5')];
    expect(keys(group(buildTree(snapshot({ ready }), ctx()), 'ready'))).toEqual(['BAT-7', 'BAT-2', 'BAT-5']);
  });

  it('orders claims by nearest expiry', () => {
    const claims = [claim('BAT-1', 900_000), claim('BAT-2', 60_000), claim('BAT-3', 300_000)];
    expect(keys(group(buildTree(snapshot({ claims }), ctx()), 'claimed'))).toEqual(['BAT-2', 'BAT-3', 'BAT-1']);
  });

  it('orders Doing, Blocked and In review by effective priority, priority, age, then key number', () => {
    const doing = [
      issue('BAT-10', { status: 'doing', createdAt: iso(T0 - 1000) }),
      issue('BAT-9', { status: 'doing', createdAt: iso(T0 - 1000) }),
      issue('BAT-3', { status: 'doing', createdAt: iso(T0) }),
      issue('BAT-4', { status: 'doing', priority: 3, effectivePriority: 1 }),
      issue('BAT-5', { status: 'doing', priority: 1 }),
    ];
    expect(keys(group(buildTree(snapshot({ doing }), ctx()), 'doing'))).toEqual(['BAT-5', 'BAT-4', 'BAT-9', 'BAT-10', 'BAT-3']);
  });

  it('shows the most recently finished issues first', () => {
    const done = [issue('BAT-1', { status: 'done', updatedAt: iso(T0 - 5000) }), issue('BAT-2', { status: 'done', updatedAt: iso(T0 - 1000) })];
    const node = group(buildTree(snapshot({ done }), ctx()), 'done')!;
    expect(keys(node)).toEqual(['BAT-2', 'BAT-1']);
    expect(node.children[0]!.description).toBe('done just now');
  });

  it('shows an effective priority raised by what the issue blocks', () => {
    const ready = [issue('BAT-1', { priority: 3, effectivePriority: 0, labels: ['parser'] })];
    expect(group(buildTree(snapshot({ ready }), ctx()), 'ready')!.children[0]!.description).toBe('P3 → P0 · parser');
  });
});

describe('countdown', () => {
  it('shows holder and time left, and moves with the clock', () => {
    const snap = snapshot({ claims: [claim('BAT-1', 29 * 60_000 + 41_000)] });
    const at = new ManualClock(T0);
    expect(claimNode(buildTree(snap, ctx({ now: at.now() })), 'BAT-1').description).toBe('claude · 29:41 left');
    at.advance(1000);
    expect(claimNode(buildTree(snap, ctx({ now: at.now() })), 'BAT-1').description).toBe('claude · 29:40 left');
    at.advance(29 * 60_000 + 40_000);
    const expired = claimNode(buildTree(snap, ctx({ now: at.now() })), 'BAT-1');
    expect(expired.countdown).toBe('expired');
    expect(expired.description).toBe('claude · expired');
  });

  it('takes the warning colour within the threshold, and not before', () => {
    const snap = snapshot({ claims: [claim('BAT-1', 300_001)] });
    const at = new ManualClock(T0);
    expect(claimNode(buildTree(snap, ctx({ now: at.now() })), 'BAT-1').warning).toBe(false);
    at.advance(1);
    expect(claimNode(buildTree(snap, ctx({ now: at.now() })), 'BAT-1').warning).toBe(true);
  });

  it('follows the configured threshold', () => {
    const snap = snapshot({ claims: [claim('BAT-1', 10 * 60_000)] });
    expect(claimNode(buildTree(snap, ctx({ warningSeconds: 600 })), 'BAT-1').warning).toBe(true);
    expect(claimNode(buildTree(snap, ctx({ warningSeconds: 599 })), 'BAT-1').warning).toBe(false);
    expect(claimNode(buildTree(snap, ctx({ warningSeconds: 0 })), 'BAT-1').warning).toBe(false);
  });
});

describe('activity', () => {
  it('shows how long ago the agent was active, and "idle" in the warning colour past the idle limit', () => {
    const snap = snapshot({ idleSeconds: 3600, claims: [claim('BAT-1', 20 * 60_000, { lastActiveAt: iso(T0 - 2 * 60_000) }), claim('BAT-2', 20 * 60_000, { lastActiveAt: iso(T0 - 61 * 60_000) })] });
    const groups = buildTree(snap, ctx());
    expect(claimNode(groups, 'BAT-1')).toMatchObject({ description: 'claude · 20:00 left · active 2 min ago', idle: false });
    expect(claimNode(groups, 'BAT-2')).toMatchObject({ description: 'claude · 20:00 left · idle 61 min', idle: true });
  });

  it('never shows an agent as idle when there is no idle limit', () => {
    const snap = snapshot({ idleSeconds: 0, claims: [claim('BAT-1', 20 * 60_000, { lastActiveAt: iso(T0 - 61 * 60_000) })] });
    expect(claimNode(buildTree(snap, ctx()), 'BAT-1')).toMatchObject({ description: 'claude · 20:00 left · active 1 h ago', idle: false });
  });
});

describe('claims this window keeps alive', () => {
  const mine = claim('BAT-1', 600_000, { renewer: WINDOW, session: 's-mine' });
  const other = claim('BAT-2', 600_000, { renewer: 'vscode:other-window', session: 's-other' });
  const sessions = [session('s-mine', { renewer: WINDOW }), session('s-other', { renewer: 'vscode:other-window' })];

  it('says so in the row and in the renewer detail while the holder runs', () => {
    alive.clear();
    alive.add('s-mine').add('s-other');
    const tree = buildTree(snapshot({ claims: [mine, other], sessions }), ctx());
    const node = claimNode(tree, 'BAT-1');
    expect(node.keptAliveHere).toBe(true);
    expect(node.description).toBe('claude · 10:00 left · kept alive here');
    expect(node.details.find((d) => d.field === 'renewer')!.value).toBe(`${WINDOW} (this window keeps it alive)`);
    expect(claimNode(tree, 'BAT-2').keptAliveHere).toBe(false);
  });

  it('stops saying so once the holder process is gone', () => {
    alive.clear();
    const node = claimNode(buildTree(snapshot({ claims: [mine], sessions }), ctx()), 'BAT-1');
    expect(node.keptAliveHere).toBe(false);
    expect(node.details.find((d) => d.field === 'holder')!.value).toBe('claude · session s-mine · process gone');
    expect(node.details.find((d) => d.field === 'renewer')!.value).toMatch(/will lapse/);
  });
});

describe('claim details', () => {
  it('expand to holder, branch, worktree, renewer, last renewal, fence and the latest checkpoint', () => {
    const c = claim('BAT-1', 600_000, {
      lastRenewedAt: iso(T0 - 5 * 60_000),
      checkpoint: { note: 'Parsed the header\nmore', state: null, agent: 'claude', at: iso(T0 - 120_000), git: { head: 'abcdef1234567', branch: 'baton/bat-1', dirty: [] } },
    });
    const node = claimNode(buildTree(snapshot({ claims: [c], fences: { 'BAT-1': 3 } }), ctx()), 'BAT-1');
    expect(node.details.map((d) => [d.label, d.value])).toEqual([
      ['Holder', 'claude · session session-BAT-1 · process unknown'],
      ['Branch', 'baton/bat-1-title'],
      ['Worktree', '/repo'],
      ['Renewer', 'none'],
      ['Last renewal', '5 min ago · 2026-01-01 11:55:00 UTC'],
      ['Fence', '3'],
      ['Checkpoint', 'Parsed the header · 2 min ago · HEAD abcdef1'],
    ]);
    expect(node.hasCheckpoint).toBe(true);
    expect(node.tooltip).toContain('**BAT-1** Title of BAT-1');
    expect(node.tooltip).toContain('**Checkpoint**');
  });

  it('never carries a claim token', () => {
    const c = claim('BAT-1', 600_000);
    const withToken = { ...c, claimToken: 'secret-token' } as typeof c;
    expect(JSON.stringify(buildTree(snapshot({ claims: [withToken] }), ctx()))).not.toContain('secret-token');
  });
});

describe('overlapping claims', () => {
  it('names the other issue in the description and the other issue, holder and files in the tooltip', () => {
    const overlaps = [{ key: 'BAT-2', agent: 'bob', worktree: '/repo/wt-b', files: ['src/parser.ts', 'src/lexer.ts'] }];
    const snap = snapshot({ claims: [claim('BAT-1', 600_000, { overlaps }), claim('BAT-3', 600_000)] });
    const tree = buildTree(snap, ctx());
    const node = claimNode(tree, 'BAT-1');
    expect(node.overlaps).toEqual(overlaps);
    expect(node.description).toBe('claude · 10:00 left · overlaps BAT-2');
    expect(node.tooltip).toContain('**Overlaps BAT-2** (bob): src/parser.ts, src/lexer.ts');
    expect(claimNode(tree, 'BAT-3').overlaps).toEqual([]);
  });
});

describe('needs attention', () => {
  it('puts stuck issues first, in a Needs attention group, with their reason in the tooltip', () => {
    const reason = 'its lease expired 3 times in a row with no checkpoint';
    const groups = buildTree(snapshot({ stuck: [issue('BAT-7', { status: 'stuck', attention: reason })], ready: [issue('BAT-3')] }), ctx());
    expect(groups.map((g) => g.label)).toEqual(['Needs attention', 'Ready']);
    const node = groups[0].children[0] as IssueNode;
    expect(node).toMatchObject({ key: 'BAT-7', description: 'stuck · reopen to hand it out again' });
    expect(node.tooltip).toContain(reason);
  });
});

