import { appendFileSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as nodeFs from 'node:fs';
import { describe, expect, test, vi } from 'vitest';
import { BATON_APPLICATION_ID, SQLITE_MIGRATIONS } from '../../../shared/store/sqlite-schema.js';
import { ManualClock } from '../../../shared/clock.js';
import { StoreUnavailableError } from '../../../shared/errors.js';
import type { FileSystem } from '../../../shared/store/file/index.js';
import { nodeFileSystem } from '../../../shared/store/file/file-system.js';
import { LogFile } from '../../../shared/store/file/log-file.js';
import { encodeRecord } from '../../../shared/store/file/log-format.js';
import { loadSqlJs } from '../../../shared/store/file/sql-js.js';
import { addComment, commentTexts } from './helpers.js';
import { storeScratch } from './store-scratch.js';

const scratch = storeScratch('log', 'baton.db');
const open = scratch.open;

const tempFiles = () => readdirSync(scratch.dir).filter((name) => name.includes('.tmp-'));

/** node:fs with call counters, and a hook that may throw before a call goes through. */
function countingFs(fail?: (name: string, args: unknown[]) => void): { fs: Partial<FileSystem>; calls: Record<string, unknown[][]> } {
  const calls: Record<string, unknown[][]> = {};
  const fs: Record<string, unknown> = {};
  for (const name of ['openSync', 'readSync', 'statSync', 'renameSync', 'writeSync', 'fdatasyncSync'] as const) {
    const real = nodeFs[name] as (...args: unknown[]) => unknown;
    fs[name] = (...args: unknown[]) => {
      (calls[name] ??= []).push(args);
      fail?.(name, args);
      return real(...args);
    };
  }
  return { fs: fs as Partial<FileSystem>, calls };
}

describe('operation log recovery', () => {
  test('a torn record at the end is ignored by readers and cut off by the next writer', async () => {
    const a = await open();
    await addComment(a, 'one');
    await addComment(a, 'two');
    const complete = statSync(`${scratch.path}-log`).size;
    // Half of a record, as left by a writer killed in the middle of its append.
    const record = encodeRecord(3, [['INSERT INTO comments (issue_id, text, agent, at) VALUES (1, ?, ?, 0)', ['torn', 'x']]]);
    appendFileSync(`${scratch.path}-log`, record.subarray(0, record.length >> 1));
    const b = await open();
    expect(await commentTexts(b)).toEqual(['one', 'two']);
    await addComment(b, 'three');
    expect(await commentTexts(a)).toEqual(['one', 'two', 'three']);
    expect(await commentTexts(await open())).toEqual(['one', 'two', 'three']);
    const appended = statSync(`${scratch.path}-log`).size - complete;
    expect(appended).toBeLessThan(record.length + 200);
  });

  test('a record that replaces a torn tail of exactly its length is still seen by readers', async () => {
    const clock = new ManualClock(1_000);
    const a = await open({ clock });
    const b = await open({ clock });
    await addComment(a, 'one');
    const seq = ((await a.info()).appliedSeq as number) + 1;
    // The record b is about to write, with its checksum spoiled: same length, torn.
    const next = encodeRecord(seq, [['INSERT INTO comments (issue_id, text, agent, at) VALUES (?, ?, ?, ?)', [1, 'two', 'test', 1_000]]]);
    next.writeUInt32LE(next.readUInt32LE(4) ^ 1, 4);
    appendFileSync(`${scratch.path}-log`, next);
    expect(await commentTexts(a)).toEqual(['one']);
    const size = statSync(`${scratch.path}-log`).size;
    await addComment(b, 'two');
    expect(statSync(`${scratch.path}-log`).size).toBe(size);
    expect(await commentTexts(a)).toEqual(['one', 'two']);
  });

  /** Writes `count` comments through a fresh store and returns where each record starts in the log. */
  async function recordStarts(count: number): Promise<number[]> {
    const a = await open();
    const starts = [];
    for (let i = 1; i <= count; i++) {
      starts.push(statSync(`${scratch.path}-log`).size);
      await addComment(a, `comment ${i}`);
    }
    return starts;
  }

  test.each([
    ['a byte of its payload', (bytes: Buffer, start: number) => (bytes[start + 40] ^= 0x20)],
    ['its length', (bytes: Buffer, start: number) => (bytes[start] ^= 0x20)],
    ['its length, now past the end of the file', (bytes: Buffer, start: number) => (bytes[start + 3] ^= 0x08)],
    ['its seq', (bytes: Buffer, start: number) => (bytes[start + 8] ^= 0x20)],
    ['all of it, zeroed', (bytes: Buffer, start: number, end: number) => bytes.fill(0, start, end)],
  ])('damage to %s in a record with complete records after it is refused, and the log left as it is', async (_, damage) => {
    const starts = await recordStarts(4);
    const log = `${scratch.path}-log`;
    const bytes = readFileSync(log);
    damage(bytes, starts[1], starts[2]);
    writeFileSync(log, bytes);
    const opening = open();
    await expect(opening).rejects.toThrow(StoreUnavailableError);
    await expect(opening).rejects.toThrow(/byte \d+ is damaged and complete records follow it/);
    expect(readFileSync(log).equals(bytes)).toBe(true);
  });

  test('a process that meets the damage while catching up refuses to write instead of cutting the log back', async () => {
    const a = await open();
    await addComment(a, 'seen by both');
    const b = await open();
    const damaged = statSync(`${scratch.path}-log`).size;
    await addComment(a, 'damaged later');
    await addComment(a, 'acknowledged after it');
    const bytes = readFileSync(`${scratch.path}-log`);
    bytes[damaged + 40] ^= 0x20;
    writeFileSync(`${scratch.path}-log`, bytes);
    const write = await addComment(b, 'refused').catch((error: unknown) => error);
    expect(write).toBeInstanceOf(StoreUnavailableError);
    await expect(commentTexts(b)).rejects.toThrow(/damaged/);
    expect(readFileSync(`${scratch.path}-log`).equals(bytes)).toBe(true);
  });

  test('damage to the last record is a torn tail: the records before it stay, the next writer cuts it off', async () => {
    const starts = await recordStarts(3);
    const log = `${scratch.path}-log`;
    const bytes = readFileSync(log);
    bytes[starts[2] + 40] ^= 0x20;
    writeFileSync(log, bytes);
    const b = await open();
    expect(await commentTexts(b)).toEqual(['comment 1', 'comment 2']);
    await addComment(b, 'after the cut');
    expect(await commentTexts(await open())).toEqual(['comment 1', 'comment 2', 'after the cut']);
  });

  test('a failing rename during compaction leaves a usable store and no temporary file', async () => {
    let failRenames = 1;
    const { fs } = countingFs((name) => {
      if (name === 'renameSync' && failRenames-- > 0) throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
    });
    await open();
    const a = await open({ fs, compactAfterBytes: 1 });
    const result = await addComment(a, 'kept');
    expect(result.ok).toBe(true);
    expect(tempFiles()).toEqual([]);
    await addComment(a, 'and more');
    expect(await commentTexts(await open())).toEqual(['kept', 'and more']);
  });

  test('a failing rename of the new log after the new snapshot leaves a usable store', async () => {
    let renames = 0;
    const { fs } = countingFs((name) => {
      if (name === 'renameSync' && ++renames === 2) throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
    });
    await open();
    const a = await open({ fs, compactAfterBytes: 1 });
    await addComment(a, 'one');
    await addComment(a, 'two');
    expect(tempFiles()).toEqual([]);
    expect(await commentTexts(await open())).toEqual(['one', 'two']);
  });

  test('a writer whose lock was taken over while it compacted renames nothing into place', async () => {
    let broken = false;
    const { fs } = countingFs((name, args) => {
      // Someone judged this holder stale and broke its lock while it wrote the new snapshot.
      if (name === 'openSync' && String(args[0]).includes('.tmp-') && !broken) {
        broken = true;
        nodeFs.unlinkSync(`${scratch.path}.lock/owner`);
      }
    });
    await open();
    const a = await open({ fs, compactAfterBytes: 1 });
    const snapshot = statSync(scratch.path).ino;
    const log = statSync(`${scratch.path}-log`).ino;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect((await addComment(a, 'committed before the compaction')).ok).toBe(true);
      expect(errors.mock.calls.join('\n')).toMatch(/could not write a new snapshot .*lock was taken over/);
    } finally {
      errors.mockRestore();
    }
    expect(broken).toBe(true);
    expect(statSync(scratch.path).ino).toBe(snapshot);
    expect(statSync(`${scratch.path}-log`).ino).toBe(log);
    expect(tempFiles()).toEqual([]);
    expect(await commentTexts(await open())).toEqual(['committed before the compaction']);
  });

  test('a writer that lost the lock before cutting off a torn tail cuts nothing', async () => {
    const a = await open();
    await addComment(a, 'one');
    const record = encodeRecord(2, [['INSERT INTO comments (issue_id, text, agent, at) VALUES (1, ?, ?, 0)', ['torn', 'x']]]);
    appendFileSync(`${scratch.path}-log`, record.subarray(0, record.length >> 1));
    const size = statSync(`${scratch.path}-log`).size;
    let armed = false;
    const { fs } = countingFs((name) => {
      // Judged stale and broken right after taking the lock, as it read the log under it.
      if (name === 'readSync' && armed && nodeFs.existsSync(`${scratch.path}.lock/owner`)) {
        armed = false;
        nodeFs.unlinkSync(`${scratch.path}.lock/owner`);
      }
    });
    const b = await open({ fs });
    armed = true;
    const write = await addComment(b, 'refused').catch((error: unknown) => error);
    expect(write).toBeInstanceOf(StoreUnavailableError);
    expect((write as Error).message).toMatch(/lock was taken over/);
    expect(statSync(`${scratch.path}-log`).size).toBe(size);
  });

  test('a process whose history the files no longer hold starts over from them instead of writing on its own version', async () => {
    const a = await open();
    await addComment(a, 'one');
    await addComment(a, 'two');
    // The log is deleted; a process opened now knows only the snapshot, and writes first.
    nodeFs.unlinkSync(`${scratch.path}-log`);
    const b = await open();
    expect((await addComment(b, 'b1')).ok).toBe(true);
    expect((await addComment(a, 'a3')).ok).toBe(true);
    const everyone = [await commentTexts(a), await commentTexts(b), await commentTexts(await open())];
    expect(everyone).toEqual([
      ['b1', 'a3'],
      ['b1', 'a3'],
      ['b1', 'a3'],
    ]);
  });

  test('a database whose folder has gone is not brought back by the next write; when it returns, writing goes on', async () => {
    const a = await open();
    await addComment(a, 'before');
    const away = `${scratch.dir}-away`;
    nodeFs.renameSync(scratch.dir, away);
    try {
      await expect(addComment(a, 'while away')).rejects.toThrow(StoreUnavailableError);
      expect(nodeFs.existsSync(scratch.dir)).toBe(false);
    } finally {
      nodeFs.renameSync(away, scratch.dir);
    }
    expect((await addComment(a, 'after')).ok).toBe(true);
    expect(await commentTexts(await open())).toEqual(['before', 'after']);
  });

  test('a failing append reports the store unavailable and changes nothing anywhere', async () => {
    let failAppend = false;
    const { fs } = countingFs((name, args) => {
      // Appends write at an explicit offset past the log header; the lock's small writes do not.
      const appending = name === 'writeSync' && typeof args[4] === 'number' && args[4] > 0;
      if (failAppend && appending) throw Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' });
    });
    const a = await open({ fs });
    const b = await open();
    await addComment(a, 'before');
    const logBefore = readFileSync(`${scratch.path}-log`);
    failAppend = true;
    const error = await addComment(a, 'lost').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).reason).toMatch(/ENOSPC/);
    expect(readFileSync(`${scratch.path}-log`).equals(logBefore)).toBe(true);
    expect(await commentTexts(a)).toEqual(['before']);
    expect(await commentTexts(b)).toEqual(['before']);
    failAppend = false;
    await addComment(a, 'after');
    expect(await commentTexts(b)).toEqual(['before', 'after']);
  });

  test('a failing fsync reports the store unavailable and warns the change may not be durable', async () => {
    let failSync = false;
    const { fs } = countingFs((name) => {
      if (failSync && name === 'fdatasyncSync') throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
    });
    const a = await open({ fs });
    const b = await open();
    await addComment(a, 'before');
    failSync = true;
    const error = await addComment(a, 'unsure').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as StoreUnavailableError).reason).toMatch(/EIO.*may be lost/);
    failSync = false;
    // The record was appended before the flush failed; every copy agrees that it is there.
    await addComment(a, 'after');
    expect(await commentTexts(b)).toEqual(['before', 'unsure', 'after']);
    expect(await commentTexts(a)).toEqual(['before', 'unsure', 'after']);
  });

  test('a reader that applied a record later cut back starts over from the snapshot', async () => {
    const a = await open();
    const b = await open();
    await addComment(a, 'before');
    const seq = (await a.info()).appliedSeq as number;
    const size = statSync(`${scratch.path}-log`).size;
    // A record whose writer then failed to fsync it and cut it back: b applies it meanwhile.
    const ghost = encodeRecord(seq + 1, [['INSERT INTO comments (issue_id, text, agent, at) VALUES (1, ?, ?, 0)', ['ghost', 'x']]]);
    appendFileSync(`${scratch.path}-log`, ghost);
    expect(await commentTexts(b)).toEqual(['before', 'ghost']);
    nodeFs.truncateSync(`${scratch.path}-log`, size);
    await addComment(a, 'after');
    expect(await commentTexts(b)).toEqual(['before', 'after']);
  });

  test('a read does not read any file when nothing changed', async () => {
    const { fs, calls } = countingFs();
    const a = await open({ fs });
    const b = await open();
    await addComment(b, 'x');
    await commentTexts(a);
    const reads = calls.readSync?.length ?? 0;
    for (let i = 0; i < 10; i++) await commentTexts(a);
    await a.version();
    expect(calls.readSync?.length ?? 0).toBe(reads);
  });

  test('a caught-up store follows another store’s compaction without reloading the snapshot', async () => {
    const { fs, calls } = countingFs();
    const a = await open({ compactAfterBytes: 1500 });
    const b = await open({ fs });
    const loads = () => (calls.openSync ?? []).filter(([file]) => file === scratch.path).length;
    const before = loads();
    for (let i = 0; i < 30; i++) {
      await addComment(a, `c${i}`);
      await commentTexts(b);
    }
    expect(loads()).toBe(before);
    expect(await commentTexts(b)).toHaveLength(30);
  });

  test('a store left behind by two compactions reloads the snapshot and misses nothing', async () => {
    const { fs, calls } = countingFs();
    const a = await open({ compactAfterBytes: 1500 });
    const b = await open({ fs });
    await commentTexts(b);
    for (let i = 0; i < 30; i++) await addComment(a, `c${i}`);
    expect(await commentTexts(b)).toEqual(Array.from({ length: 30 }, (_, i) => `c${i}`));
    expect((calls.openSync ?? []).filter(([file]) => file === scratch.path).length).toBeGreaterThan(0);
  });

  test('a database at an older schema is migrated by a logged write that other stores replay', async () => {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    db.run(`PRAGMA application_id = ${BATON_APPLICATION_ID}`);
    writeFileSync(scratch.path, db.export());
    db.close();
    const a = await open();
    expect((await a.info()).schemaVersion).toBe(SQLITE_MIGRATIONS.length);
    await addComment(a, 'on the new schema');
    expect(await commentTexts(await open())).toEqual(['on the new schema']);
  });
});

describe('catching up a stretch of the log at a time', () => {
  /** Every record of the log, read through `readNew` with at most `maxBytes` at a time. */
  function readAll(maxBytes: number) {
    const log = LogFile.open(nodeFileSystem, `${scratch.path}-log`)!;
    try {
      const size = log.size();
      const records = [];
      let reads = 0;
      for (;;) {
        const read = log.readNew(size, 0, maxBytes);
        if (read.kind !== 'records') throw new Error('rewound');
        records.push(...read.records);
        reads++;
        if (!read.more) return { records: records.map((r) => [r.seq, r.start, r.end, r.statements]), reads, torn: log.tornBytes };
      }
    } finally {
      log.close();
    }
  }

  test('finds the same records in stretches as in one read, a record longer than a stretch included', async () => {
    const a = await open();
    for (let i = 0; i < 20; i++) await addComment(a, `comment ${i}`);
    await addComment(a, 'x'.repeat(5_000));
    await addComment(a, 'after the long one');
    const whole = readAll(Infinity);
    expect(whole.records).toHaveLength(22);
    const stretched = readAll(300);
    expect(stretched.records).toEqual(whole.records);
    expect(stretched.reads).toBeGreaterThan(10);
  });

  test('a copy more than a stretch behind catches up on all of it', async () => {
    const a = await open();
    await addComment(a, 'seen by both');
    const b = await open();
    const texts = ['seen by both'];
    for (let i = 0; i < 400; i++) {
      texts.push(`${i} ${'z'.repeat(4_000)}`);
      await addComment(a, texts[texts.length - 1]);
    }
    expect(statSync(`${scratch.path}-log`).size).toBeGreaterThan(1.5 * 1024 * 1024);
    expect(await commentTexts(b)).toEqual(texts);
    expect(await commentTexts(await open())).toEqual(texts);
  });

  test('a torn tail after the last stretch stays a torn tail', async () => {
    const a = await open();
    for (let i = 0; i < 10; i++) await addComment(a, `comment ${i}`);
    const record = encodeRecord(12, [['INSERT INTO comments (issue_id, text, agent, at) VALUES (1, ?, ?, 0)', ['torn', 'x']]]);
    appendFileSync(`${scratch.path}-log`, record.subarray(0, record.length - 7));
    const stretched = readAll(200);
    expect(stretched.records).toEqual(readAll(Infinity).records);
    expect(stretched.torn).toBe(record.length - 7);
  });

  test('damage with complete records after it is found when a stretch ends inside the damaged record', async () => {
    const a = await open();
    const starts: number[] = [];
    for (let i = 0; i < 6; i++) {
      starts.push(statSync(`${scratch.path}-log`).size);
      await addComment(a, `comment ${i} ${'y'.repeat(100)}`);
    }
    const path = `${scratch.path}-log`;
    const bytes = readFileSync(path);
    bytes[starts[3] + 40] ^= 0x20;
    writeFileSync(path, bytes);
    // The first stretch ends in the middle of the damaged record.
    expect(() => readAll(starts[3] + 30 - starts[0])).toThrow(/damaged and complete records follow it/);
  });
});
