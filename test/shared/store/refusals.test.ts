import { existsSync, readdirSync, readFileSync, readSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { StoreUnavailableError } from '../../../shared/errors.js';
import { ok } from '../../../shared/result.js';
import { SQLITE_MIGRATIONS } from '../../../shared/store/sqlite-schema.js';
import { type FileSystem, openFileStore } from '../../../shared/store/file/index.js';
import { loadSqlJs } from '../../../shared/store/file/sql-js.js';
import { insertIssue, scratchDir, sha256 } from './helpers.js';

let scratch: ReturnType<typeof scratchDir>;
let path: string;

beforeEach(() => {
  scratch = scratchDir('refuse');
  path = join(scratch.dir, 'baton.db');
});

afterEach(() => scratch.remove());

/** A real Baton database of a few pages, closed, with its log folded into the snapshot. */
async function makeDatabase(): Promise<void> {
  const store = await openFileStore({ path, compactAfterBytes: 1 });
  await store.write(async (tx) => {
    for (let n = 1; n <= 200; n++) await insertIssue(tx, n, `a title long enough to fill some pages ${'x'.repeat(100)}`);
    return ok(undefined);
  });
  await store.close();
}

/** Opens the path expecting a refusal that names `refusedPath` and leaves every file as it was. */
async function expectRefusal(reason: RegExp, refusedPath = path, fs?: Partial<FileSystem>): Promise<void> {
  const before = snapshotOfFolder();
  const error = await openFileStore({ path, fs }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreUnavailableError);
  expect((error as StoreUnavailableError).path).toBe(refusedPath);
  expect((error as Error).message).toContain(refusedPath);
  expect((error as StoreUnavailableError).reason).toMatch(reason);
  expect(snapshotOfFolder()).toEqual(before);
}

/** Every file in the scratch folder with its sha256 (the lock folder is not data). */
function snapshotOfFolder(): Record<string, string> {
  const files = readdirSync(scratch.dir, { withFileTypes: true }).filter((entry) => entry.isFile());
  return Object.fromEntries(files.map((entry) => [entry.name, sha256(join(scratch.dir, entry.name))]));
}

describe('file store refusals', () => {
  test('refuses a file that is not an SQLite database and leaves it byte-identical', async () => {
    writeFileSync(path, 'these are somebody else’s notes, not a database\n'.repeat(20));
    await expectRefusal(/not a Baton database/);
  });

  test('refuses an SQLite database of another application and leaves it byte-identical', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.run('CREATE TABLE notes (text TEXT)');
    db.run(`INSERT INTO notes VALUES ('mine')`);
    writeFileSync(path, db.export());
    db.close();
    await expectRefusal(/not a Baton database \(SQLite application_id 0x00000000/);
  });

  test('refuses a truncated Baton database and leaves it byte-identical', async () => {
    await makeDatabase();
    const size = readFileSync(path).length;
    expect(size).toBeGreaterThan(8192);
    truncateSync(path, size / 2);
    await expectRefusal(/truncated database file/);
  });

  test('refuses a snapshot that ends sooner than its size said while it was read', async () => {
    await makeDatabase();
    const half = readFileSync(path).length / 2;
    // The file ends halfway, as when something outside Baton truncates it mid-read (the
    // log's few bytes lie well before that).
    const endsHalfway = ((fd: number, buffer: Uint8Array, offset: number, length: number, position: number) =>
      readSync(fd, buffer, offset, Math.max(0, Math.min(length, half - position)), position)) as typeof readSync;
    await expectRefusal(/^cannot read the file \(it shrank while being read\)$/, path, { readSync: endsHalfway });
  });

  test('refuses a database from a newer Baton, naming both schema versions', async () => {
    await makeDatabase();
    const bytes = readFileSync(path);
    bytes.writeUInt32BE(99, 60);
    writeFileSync(path, bytes);
    await expectRefusal(new RegExp(`created by a newer Baton \\(schema 99; this one knows ${SQLITE_MIGRATIONS.length}\\)`));
  });

  test('refuses a database whose pages SQLite cannot read', async () => {
    await makeDatabase();
    const bytes = readFileSync(path);
    // Keep the 100-byte header, destroy the schema page behind it.
    bytes.fill(0xa5, 100, 4096);
    writeFileSync(path, bytes);
    await expectRefusal(/SQLite cannot read it/);
  });

  test('refuses an operation log with a foreign header, naming the log', async () => {
    await makeDatabase();
    writeFileSync(`${path}-log`, 'not a log at all');
    await expectRefusal(/not a Baton operation log/, `${path}-log`);
  });

  test('refuses an operation log whose snapshot is missing instead of starting afresh', async () => {
    await makeDatabase();
    const store = await openFileStore({ path });
    await store.write(async (tx) => {
      await insertIssue(tx, 1000);
      return ok(undefined);
    });
    await store.close();
    writeFileSync(path, '');
    await expectRefusal(/operation log .* is not empty/);
  });

  test('creates a database where an empty file stands', async () => {
    writeFileSync(path, '');
    const store = await openFileStore({ path });
    expect((await store.info()).schemaVersion).toBe(SQLITE_MIGRATIONS.length);
    await store.close();
    expect(existsSync(`${path}-log`)).toBe(true);
  });
});
