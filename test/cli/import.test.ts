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
