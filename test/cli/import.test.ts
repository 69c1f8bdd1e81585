import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';

describe('baton import', () => {
  let repo: ScratchRepo;
  const cli = (...args: string[]) => runCli(args, { cwd: repo.main });
  const file = (name: string, text: string) => {
    const path = join(repo.dir, name);
    writeFileSync(path, text);
    return path;
  };
  const issues = async () => (await cli('ls', '--all', '--json')).json().issues as { key: string; title: string; priority: number; labels: string[]; blockedBy: string[] }[];

  beforeEach(() => {
    repo = makeRepo();
  });
  afterEach(() => repo.remove());

  const ARRAY = JSON.stringify([
    { title: 'Schema', priority: 1, labels: ['api'] },
    { title: 'Storage', body: 'Tables and indexes.' },
    { title: 'Endpoints', priority: 0, blockedBy: ['Schema', 'Storage'] },
  ]);

  it('creates issues from a JSON array, with blockedBy given by title', async () => {
    const run = await cli('import', file('issues.json', ARRAY), '--json');
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({
      created: [
        { key: 'BAT-1', title: 'Schema' },
        { key: 'BAT-2', title: 'Storage' },
        { key: 'BAT-3', title: 'Endpoints' },
      ],
      existing: [],
      relations: [
        { key: 'BAT-3', blockedBy: 'BAT-1' },
        { key: 'BAT-3', blockedBy: 'BAT-2' },
      ],
    });
    const byTitle = Object.fromEntries((await issues()).map((i) => [i.title, i]));
    expect(byTitle.Schema).toMatchObject({ priority: 1, labels: ['api'] });
    expect(byTitle.Endpoints.blockedBy.sort()).toEqual(['BAT-1', 'BAT-2']);
  });

  it('changes nothing when the same file is imported again', async () => {
    const path = file('issues.json', ARRAY);
    await cli('import', path);
    const before = await issues();
    const again = await cli('import', path, '--json');
    expect(again.status).toBe(0);
    expect(again.json()).toEqual({
      created: [],
      existing: [
        { key: 'BAT-1', title: 'Schema' },
        { key: 'BAT-2', title: 'Storage' },
        { key: 'BAT-3', title: 'Endpoints' },
      ],
      relations: [],
    });
    expect(await issues()).toEqual(before);
  });

  it('reads JSON lines, with blockedBy given by the key of an existing issue', async () => {
    await cli('add', 'Already here');
    const lines = ['{"title":"Parser","priority":2}', '', '{"title":"Printer","blockedBy":["BAT-1","Parser"],"labels":["io"]}'].join('\n');
    const run = await cli('import', file('issues.jsonl', lines), '--json');
    expect(run.status).toBe(0);
    expect(run.json().created).toEqual([
      { key: 'BAT-2', title: 'Parser' },
      { key: 'BAT-3', title: 'Printer' },
    ]);
    const printer = (await issues()).find((i) => i.title === 'Printer')!;
    expect(printer.blockedBy.sort()).toEqual(['BAT-1', 'BAT-2']);
    expect(printer.labels).toEqual(['io']);
  });

  it('reads the output of gh issue list --json number,title,body,labels', async () => {
    const gh = JSON.stringify([
      { number: 12, title: 'Crash on empty input', body: 'Steps: …', labels: [{ id: 'LA_1', name: 'bug', description: '', color: 'd73a4a' }, { id: 'LA_2', name: 'P0', description: '', color: '000000' }] },
      { number: 9, title: 'Add a --verbose flag', body: '', labels: [] },
    ]);
    const path = file('gh.json', gh);
    const run = await cli('import', path, '--json');
    expect(run.status).toBe(0);
    expect(run.json().created.map((r: { title: string }) => r.title)).toEqual(['Crash on empty input', 'Add a --verbose flag']);
    const crash = (await issues()).find((i) => i.title === 'Crash on empty input')!;
    expect(crash).toMatchObject({ labels: ['bug', 'P0'], priority: 0 });
    expect((await cli('import', path, '--json')).json().created).toEqual([]);
  });

  it('refuses a file whose blockedBy names nothing, and creates none of it', async () => {
    const run = await cli('import', file('bad.json', JSON.stringify([{ title: 'One' }, { title: 'Two', blockedBy: ['Nowhere'] }])));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('INVALID_INPUT');
    expect(run.stderr).toContain('Nowhere');
    expect(await issues()).toEqual([]);
  });

  it('refuses a file whose dependencies form a cycle, and creates none of it', async () => {
    const cyclic = JSON.stringify([{ title: 'A', blockedBy: ['B'] }, { title: 'B', blockedBy: ['A'] }]);
    const run = await cli('import', file('cycle.json', cyclic), '--json');
    expect(run.status).toBe(1);
    expect(run.json().error.code).toBe('CYCLE');
    expect(await issues()).toEqual([]);
  });

  it('shows control characters of the titles it quotes in a refusal as escapes', async () => {
    const title = 'A\x1b]0;PWNED\x07';
    const run = await cli('import', file('cycle.json', JSON.stringify([{ title, blockedBy: ['B'] }, { title: 'B', blockedBy: [title] }])));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('A\\u001b]0;PWNED\\u0007');
    expect(run.stderr).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
  });

  // What a refused import must leave exactly as it was: every issue, and the first in full, activity included.
  const snapshot = async () => ({ issues: await issues(), shown: (await cli('show', 'BAT-1', '--json')).json() });

  it('refuses a file whose later item has a body over the limit, and writes none of it', async () => {
    await cli('add', 'Already here');
    const before = await snapshot();
    const run = await cli('import', file('big.json', JSON.stringify([{ title: 'First' }, { title: 'Second', body: 'x'.repeat(70_000) }])), '--json');
    expect(run.status).toBe(1);
    expect(run.json().error).toMatchObject({ code: 'INVALID_INPUT', where: 'item 2' });
    expect(await snapshot()).toEqual(before);
    expect((await cli('add', 'Next', '--json')).json().issue.key).toBe('BAT-2');
  });

  it('refuses a file whose later item has a label over the limit, and writes none of it', async () => {
    await cli('add', 'Already here');
    const before = await snapshot();
    const run = await cli('import', file('label.json', JSON.stringify([{ title: 'First' }, { title: 'Second', labels: ['l'.repeat(80)] }])));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('item 2');
    expect(await snapshot()).toEqual(before);
  });

  it('refuses a file whose dependencies close a cycle through issues in the database, and writes none of it', async () => {
    await cli('add', 'Existing A');
    await cli('add', 'Existing B', '--blocked-by', 'BAT-1');
    const before = await snapshot();
    const cyclic = JSON.stringify([{ title: 'New' }, { title: 'Existing A', blockedBy: ['Existing B'] }]);
    const run = await cli('import', file('cycle.json', cyclic), '--json');
    expect(run.status).toBe(1);
    expect(run.json().error).toMatchObject({ code: 'CYCLE', path: ['BAT-1', 'BAT-2', 'BAT-1'] });
    expect(await snapshot()).toEqual(before);
  });

  it('creates each title once when two imports of the same file run at once from two worktrees', async () => {
    const other = join(repo.dir, 'other');
    repo.git(['worktree', 'add', '-q', '-b', 'other', other]);
    await cli('ls');
    const titles = Array.from({ length: 20 }, (_, i) => `Item ${i + 1}`);
    const path = file('many.json', JSON.stringify(titles.map((title) => ({ title }))));
    const runs = await Promise.all([repo.main, other].map((cwd) => runCli(['import', path, '--json'], { cwd })));
    expect(runs.map((r) => r.status)).toEqual([0, 0]);
    // One of them created everything and the other found it all there: they ran one after the other.
    const reports = runs.map((r) => r.json());
    expect(reports.map((r) => r.created.length).sort()).toEqual([0, 20]);
    expect(reports.map((r) => r.existing.length).sort()).toEqual([0, 20]);
    expect((await issues()).map((i) => i.title).sort()).toEqual([...titles].sort());
  });

  it('keeps an issue whose title exists as it is: no relation, priority or label from the file', async () => {
    await cli('add', 'X');
    await cli('add', 'Y');
    const before = (await cli('show', 'BAT-1', '--json')).json();
    const run = await cli('import', file('x.json', JSON.stringify([{ title: 'X', blockedBy: ['Y'], priority: 0, labels: ['urgent'] }])), '--json');
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({ created: [], existing: [{ key: 'BAT-1', title: 'X' }], relations: [] });
    expect((await cli('show', 'BAT-1', '--json')).json()).toEqual(before);
  });

  it('links a new issue to an existing blocker, and leaves an existing item blocked by a new one as it was', async () => {
    await cli('add', 'Old');
    const items = [{ title: 'Old', blockedBy: ['Fresh'] }, { title: 'Fresh' }, { title: 'After', blockedBy: ['Old'] }];
    const run = await cli('import', file('mixed.json', JSON.stringify(items)), '--json');
    expect(run.status).toBe(0);
    expect(run.json()).toEqual({
      created: [
        { key: 'BAT-2', title: 'Fresh' },
        { key: 'BAT-3', title: 'After' },
      ],
      existing: [{ key: 'BAT-1', title: 'Old' }],
      relations: [{ key: 'BAT-3', blockedBy: 'BAT-1' }],
    });
    const byTitle = Object.fromEntries((await issues()).map((i) => [i.title, i]));
    expect(byTitle.Old.blockedBy).toEqual([]);
    expect(byTitle.After.blockedBy).toEqual(['BAT-1']);
  });

  it('refuses an item without a title, naming where it is', async () => {
    const run = await cli('import', file('untitled.jsonl', '{"title":"Fine"}\n{"body":"no title"}\n'));
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('line 2');
  });

  it('exits 2 when the file cannot be read', async () => {
    const run = await cli('import', join(repo.dir, 'missing.json'));
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('ENOENT');
  });
});
