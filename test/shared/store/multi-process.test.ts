import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openFileStore } from '../../../shared/store/file/index.js';
import { ok } from '../../../shared/result.js';
import { bundleFixture, startChild, type Child } from './fixtures/child-process.js';
import { insertIssue, scratchDir } from './helpers.js';

let bundle: string;
let scratch: ReturnType<typeof scratchDir>;

beforeAll(async () => {
  scratch = scratchDir('multi');
  bundle = await bundleFixture('store-child.ts', scratch.dir);
});

afterAll(() => scratch.remove());

// Each test starts eight node processes; on a loaded two-core machine that alone takes seconds.

/** Starts `count` children, waits until each has opened the store, then starts them together. */
async function startTogether(count: number, args: (i: number) => string[], env: Record<string, string> = {}): Promise<Child[]> {
  const children = Array.from({ length: count }, (_, i) => startChild(bundle, args(i), env));
  await Promise.all(children.map((child) => child.waitFor((line) => line === 'ready')));
  for (const child of children) child.go();
  return children;
}

async function expectAllExitCleanly(children: Child[]): Promise<void> {
  const codes = await Promise.all(children.map((child) => child.exited));
  for (const [i, code] of codes.entries()) expect(code, children[i].stderr).toBe(0);
}

describe('file store across processes', () => {
  test('eight processes appending 100 rows each leave exactly 800 rows', async () => {
    const path = join(scratch.dir, 'append.db');
    await (await openFileStore({ path })).close();
    const children = await startTogether(8, (i) => ['append', path, '100', `p${i}`]);
    await expectAllExitCleanly(children);
    const store = await openFileStore({ path });
    const rows = await store.read((tx) => tx.all<{ agent: string; n: number }>('SELECT agent, count(*) AS n FROM comments GROUP BY agent'));
    expect(rows).toHaveLength(8);
    for (const row of rows) expect(row.n).toBe(100);
    await store.close();
  }, 120_000);

  test('read-modify-write from eight processes loses no increment', async () => {
    const path = join(scratch.dir, 'counter.db');
    await (await openFileStore({ path })).close();
    // A small compaction threshold makes compactions happen during the race too.
    const children = await startTogether(8, () => ['increment', path, '60'], { BATON_TEST_COMPACT: '4000' });
    await expectAllExitCleanly(children);
    const store = await openFileStore({ path });
    const row = await store.read((tx) => tx.get<{ value: string }>(`SELECT value FROM meta WHERE name = 'counter'`));
    expect(row?.value).toBe('480');
    await store.close();
  }, 120_000);

  test('eight processes racing guarded claims never claim an issue twice', async () => {
    const path = join(scratch.dir, 'claims.db');
    const setup = await openFileStore({ path });
    await setup.write(async (tx) => {
      for (let n = 1; n <= 200; n++) await insertIssue(tx, n);
      return ok(undefined);
    });
    await setup.close();
    const children = await startTogether(8, (i) => ['claim', path, `p${i}`]);
    await expectAllExitCleanly(children);
    const claimed = children.flatMap((child) => (JSON.parse(child.lines.at(-1)!) as { claimed: number[] }).claimed);
    expect(claimed).toHaveLength(200);
    expect(new Set(claimed).size).toBe(200);
    const store = await openFileStore({ path });
    const events = await store.read((tx) => tx.get<{ n: number; issues: number }>(`SELECT count(*) AS n, count(DISTINCT issue_id) AS issues FROM events`));
    expect(events).toEqual({ n: 200, issues: 200 });
    await store.close();
  }, 120_000);
});
