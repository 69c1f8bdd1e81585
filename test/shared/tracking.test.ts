import { describe, expect, it } from 'vitest';
import { harness, refusal, value } from '../helpers/core.js';

describe('issues', () => {
  it('numbers keys sequentially with the configured prefix', async () => {
    const h = await harness({ prefix: 'WEB' });
    const s = h.session('a');
    expect(value(await s.createIssue({ title: 'one' })).issue.key).toBe('WEB-1');
    expect(value(await s.createIssue({ title: 'two' })).issue.key).toBe('WEB-2');
  });

  it('creates with defaults: todo, priority 2, no labels, no checkpoint', async () => {
    const h = await harness();
    const { issue } = value(await h.session('a').createIssue({ title: '  Trim me  ' }));
    expect(issue).toMatchObject({ title: 'Trim me', body: '', status: 'todo', priority: 2, labels: [], checkpoint: null, reclaimCount: 0 });
  });

  it('finds a key whatever its case, and answers NOT_FOUND for a well-formed key of any prefix', async () => {
    const h = await harness();
    const s = h.session('a');
    value(await s.createIssue({ title: 'x' }));
    expect(value(await s.getIssue({ key: 'bat-1' })).issue.key).toBe('BAT-1');
    expect(refusal(await s.getIssue({ key: 'ZZZ-1' }))).toMatchObject({ code: 'NOT_FOUND', key: 'ZZZ-1' });
    expect(refusal(await s.getIssue({ key: 'BAT-99' })).code).toBe('NOT_FOUND');
  });

  it('refuses malformed input with INVALID_INPUT listing every problem, storing nothing', async () => {
    const h = await harness();
    const s = h.session('a');
    const error = refusal(await s.createIssue({ title: '', priority: 9, labels: ['x'.repeat(100)], blockedBy: ['not a key'] }));
    expect(error.code).toBe('INVALID_INPUT');
    expect((error.issues as { path: string }[]).map((i) => i.path)).toEqual(['title', 'priority', 'labels.0', 'blockedBy.0']);
    expect(refusal(await s.createIssue({ title: 'x'.repeat(201) })).code).toBe('INVALID_INPUT');
    expect(refusal(await s.getIssue({ key: 'BAT1' })).code).toBe('INVALID_INPUT');
    expect(value(await s.listIssues({})).issues).toHaveLength(0);
  });

  it('refuses a blocker that names no issue with NOT_FOUND, creating nothing', async () => {
    const h = await harness();
    const s = h.session('a');
    expect(refusal(await s.createIssue({ title: 'x', blockedBy: ['BAT-7'] })).code).toBe('NOT_FOUND');
    expect(value(await s.listIssues({})).issues).toHaveLength(0);
    expect(value(await s.createIssue({ title: 'y' })).issue.key).toBe('BAT-1');
  });

  it('lists newest first, filtered by status, label and text, a page at a time', async () => {
    const h = await harness();
    const s = h.session('a');
    for (let i = 1; i <= 5; i++) {
      value(await s.createIssue({ title: `Issue ${i}`, labels: i % 2 ? ['odd'] : [], body: i === 3 ? 'needle 100%' : '' }));
      h.clock.advance(1000);
    }
    const page1 = value(await s.listIssues({ limit: 2 }));
    expect(page1.issues.map((i) => i.key)).toEqual(['BAT-5', 'BAT-4']);
    const page2 = value(await s.listIssues({ limit: 2, cursor: page1.nextCursor! }));
    expect(page2.issues.map((i) => i.key)).toEqual(['BAT-3', 'BAT-2']);
    const page3 = value(await s.listIssues({ limit: 2, cursor: page2.nextCursor! }));
    expect(page3.issues.map((i) => i.key)).toEqual(['BAT-1']);
    expect(page3.nextCursor).toBeNull();
    expect(value(await s.listIssues({ label: 'odd' })).issues.map((i) => i.key)).toEqual(['BAT-5', 'BAT-3', 'BAT-1']);
    expect(value(await s.listIssues({ text: 'NEEDLE 100%' })).issues.map((i) => i.key)).toEqual(['BAT-3']);
    expect(value(await s.listIssues({ text: '_' })).issues).toHaveLength(0);
    expect(value(await s.listIssues({ status: 'done' })).issues).toHaveLength(0);
    expect(refusal(await s.listIssues({ cursor: 'garbage' })).code).toBe('INVALID_INPUT');
  });

  it('finds text beyond ASCII as it was typed, and its ASCII letters in any case', async () => {
    const h = await harness();
    const s = h.session('a');
    value(await s.createIssue({ title: 'Ärger mit Umlauten', body: 'Die Straße über die Brücke' }));
    value(await s.createIssue({ title: 'Plain' }));
    for (const text of ['Ärger', 'Ärger MIT', 'Straße', 'Brücke', 'über']) {
      expect(value(await s.listIssues({ text })).issues.map((i) => i.key), text).toEqual(['BAT-1']);
    }
  });

  it('lists done issues by when they were finished, latest first, however old they are', async () => {
    const h = await harness();
    const s = h.session('a');
    for (const title of ['Oldest', 'Middle', 'Newest', 'Dropped']) value(await s.createIssue({ title }));
    for (const key of ['BAT-3', 'BAT-1']) {
      h.clock.advance(1000);
      value(await s.updateIssue({ key, status: 'done' }));
    }
    h.clock.advance(1000);
    value(await s.updateIssue({ key: 'BAT-4', status: 'cancelled' }));
    value(await s.updateIssue({ key: 'BAT-2', title: 'Middle, edited' }));
    expect(value(await s.recentlyDone()).issues.map((i) => i.key)).toEqual(['BAT-1', 'BAT-3']);
    expect(value(await s.recentlyDone({ limit: 1 })).issues.map((i) => i.key)).toEqual(['BAT-1']);
    expect(refusal(await s.recentlyDone({ limit: 0 }))).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('reads the statuses of many issues at once, leaving out keys that name none', async () => {
    const h = await harness();
    const s = h.session('a');
    const keys: string[] = [];
    for (let n = 1; n <= 1203; n++) keys.push(value(await s.createIssue({ title: `Issue ${n}` })).issue.key);
    value(await s.updateIssue({ key: 'BAT-2', status: 'done' }));
    value(await s.updateIssue({ key: 'BAT-1202', status: 'cancelled' }));
    const statuses = value(await s.issueStatuses([...keys, 'BAT-5000']));
    expect(statuses.size).toBe(1203);
    expect([statuses.get('BAT-1'), statuses.get('BAT-2'), statuses.get('BAT-1202'), statuses.get('BAT-1203')]).toEqual(['todo', 'done', 'cancelled', 'todo']);
    expect(statuses.has('BAT-5000')).toBe(false);
    expect(value(await s.issueStatuses([])).size).toBe(0);
    expect(refusal(await s.issueStatuses(['BAT-1', 'not a key']))).toMatchObject({ code: 'INVALID_INPUT' });
  }, 60_000);
});

describe('relations', () => {
  it('keeps blocks and blockedBy as two views of one relation', async () => {
    const h = await harness();
    const s = h.session('a');
    value(await s.createIssue({ title: 'a' }));
    value(await s.createIssue({ title: 'b' }));
    const { relations } = value(await s.relate({ key: 'BAT-1', type: 'blocks', other: 'BAT-2' }));
    expect(relations.blocks).toEqual(['BAT-2']);
    expect(value(await s.getIssue({ key: 'BAT-2' })).relations.blockedBy).toEqual(['BAT-1']);
  });

  it('refuses a dependency cycle with CYCLE and the path', async () => {
    const h = await harness();
    const s = h.session('a');
    for (const t of ['a', 'b', 'c']) value(await s.createIssue({ title: t }));
    value(await s.relate({ key: 'BAT-1', type: 'blocks', other: 'BAT-2' }));
    value(await s.relate({ key: 'BAT-2', type: 'blocks', other: 'BAT-3' }));
    const error = refusal(await s.relate({ key: 'BAT-3', type: 'blocks', other: 'BAT-1' }));
    expect(error).toMatchObject({ code: 'CYCLE', path: ['BAT-3', 'BAT-1', 'BAT-2', 'BAT-3'] });
    expect(refusal(await s.relate({ key: 'BAT-1', type: 'blockedBy', other: 'BAT-3' })).code).toBe('CYCLE');
    expect(refusal(await s.relate({ key: 'BAT-1', type: 'blocks', other: 'BAT-1' })).code).toBe('CYCLE');
    expect(value(await s.getIssue({ key: 'BAT-1' })).relations.blockedBy).toEqual([]);
  });

  it('refuses a parent cycle with CYCLE', async () => {
    const h = await harness();
    const s = h.session('a');
    value(await s.createIssue({ title: 'epic' }));
    value(await s.createIssue({ title: 'story', parent: 'BAT-1' }));
    expect(value(await s.getIssue({ key: 'BAT-1' })).relations.children).toEqual(['BAT-2']);
    expect(refusal(await s.relate({ key: 'BAT-1', type: 'parent', other: 'BAT-2' })).code).toBe('CYCLE');
  });

  it('relates issues symmetrically and removes relations', async () => {
    const h = await harness();
    const s = h.session('a');
    value(await s.createIssue({ title: 'a' }));
    value(await s.createIssue({ title: 'b' }));
    value(await s.relate({ key: 'BAT-2', type: 'relatesTo', other: 'BAT-1' }));
    expect(value(await s.getIssue({ key: 'BAT-1' })).relations.relatesTo).toEqual(['BAT-2']);
    value(await s.relate({ key: 'BAT-1', type: 'relatesTo', other: 'BAT-2', remove: true }));
    expect(value(await s.getIssue({ key: 'BAT-2' })).relations.relatesTo).toEqual([]);
  });
});

describe('comments and activity', () => {
  it('keeps every comment oldest first and the activity newest first', async () => {
    const h = await harness();
    const s = h.session('alice');
    value(await s.createIssue({ title: 'a' }));
    value(await s.comment({ key: 'BAT-1', text: 'first' }));
    value(await s.comment({ key: 'BAT-1', text: 'second' }));
    const detail = value(await s.getIssue({ key: 'BAT-1' }));
    expect(detail.comments.map((c) => c.text)).toEqual(['first', 'second']);
    expect(detail.activity.map((e) => e.type)).toEqual(['commented', 'commented', 'created']);
    expect(value(await s.activity({ limit: 1 })).events).toHaveLength(1);
  });
});
