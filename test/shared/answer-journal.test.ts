import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnswerJournal } from '../../shared/forwarding/answer-journal.js';
import { type FileSystem, nodeFileSystem } from '../../shared/store/file-access.js';
import { scratchDir } from './store/helpers.js';

let scratch: ReturnType<typeof scratchDir>;
beforeEach(() => {
  scratch = scratchDir('answers');
});
afterEach(() => scratch.remove());

const id = (n: number) => n.toString(16).padStart(32, '0');
const answer = (n: number, bytes = 100) => Buffer.alloc(bytes, n % 251);
const files = (dir: string) => readdirSync(dir).map((name) => join(dir, name));
const bytesIn = (dir: string) => files(dir).reduce((n, path) => n + statSync(path).size, 0);

describe('the journal of sealed answers', () => {
  it('keeps each answer until it is removed, in files only its owner can read', () => {
    const dir = join(scratch.dir, 'db.answers');
    const journal = AnswerJournal.of(dir);
    journal.write(id(1), answer(1));
    journal.write(id(2), answer(2, 3000));
    expect(journal.size).toBe(2);
    expect(journal.read(id(1))).toEqual(answer(1));
    expect(journal.read(id(2))).toEqual(answer(2, 3000));
    expect(journal.read(id(3))).toBeUndefined();
    expect(files(dir)).toHaveLength(1);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(files(dir)[0]).mode & 0o777).toBe(0o600);

    journal.remove([id(1), id(3)]);
    expect(journal.size).toBe(1);
    expect(journal.read(id(2))).toEqual(answer(2, 3000));
    // With no answer left to give, the file is emptied rather than left to grow.
    journal.remove([id(2)]);
    expect(journal.size).toBe(0);
    expect(bytesIn(dir)).toBe(0);
    journal.write(id(4), answer(4));
    expect(journal.read(id(4))).toEqual(answer(4));
  });

  it("finds another process's answers, up to an entry cut short when its writer died", () => {
    const theirs = join(scratch.dir, 'theirs.answers');
    AnswerJournal.of(theirs).write(id(1), answer(1));
    AnswerJournal.of(theirs).write(id(2), answer(2));
    const mine = join(scratch.dir, 'mine.answers');
    mkdirSync(mine);
    const copied = join(mine, 'other-process');
    copyFileSync(files(theirs)[0], copied);
    // Half of a third entry: the writer died while appending it.
    const head = Buffer.alloc(37);
    head.writeUInt8(32, 0);
    head.write(id(3), 1, 'latin1');
    head.writeUInt32LE(100, 33);
    appendFileSync(copied, Buffer.concat([head, answer(3, 40)]));
    writeFileSync(join(mine, 'empty'), '');

    const journal = AnswerJournal.of(mine);
    expect(journal.read(id(1))).toEqual(answer(1));
    expect(journal.read(id(2))).toEqual(answer(2));
    expect(journal.read(id(3))).toBeUndefined();
    expect(journal.size).toBe(0);
  });

  it('starts a new file past 256 KiB, and removes an old one once none of its answers is wanted', () => {
    const dir = join(scratch.dir, 'db.answers');
    const journal = AnswerJournal.of(dir);
    for (let n = 0; n < 40; n++) journal.write(id(n), answer(n, 10_000));
    expect(files(dir)).toHaveLength(2);
    for (let n = 0; n < 40; n++) expect(journal.read(id(n))).toEqual(answer(n, 10_000));
    const first = files(dir).find((path) => statSync(path).size > 256 * 1024)!;
    // The first file holds the first 27 answers (27 entries of 10,037 bytes pass 256 KiB).
    // All of them but one go: the file stays for that one.
    journal.remove(Array.from({ length: 26 }, (_, n) => id(n)));
    expect(existsSync(first)).toBe(true);
    expect(journal.read(id(26))).toEqual(answer(26, 10_000));
    journal.remove([id(26)]);
    expect(existsSync(first)).toBe(false);
    expect(journal.read(id(39))).toEqual(answer(39, 10_000));
  });

  it('starts a new file after a minute without answers, long before anyone may remove the old one', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const dir = join(scratch.dir, 'db.answers');
      const journal = AnswerJournal.of(dir);
      journal.write(id(1), answer(1));
      vi.setSystemTime(Date.now() + 59_000);
      journal.write(id(2), answer(2));
      expect(files(dir)).toHaveLength(1);
      vi.setSystemTime(Date.now() + 61_000);
      journal.write(id(3), answer(3));
      expect(files(dir)).toHaveLength(2);
      for (const n of [1, 2, 3]) expect(journal.read(id(n))).toEqual(answer(n));
    } finally {
      vi.useRealTimers();
    }
  });

  it('leaves files that are still written to, and removes those of a writer gone long ago', () => {
    const dir = join(scratch.dir, 'db.answers');
    AnswerJournal.of(dir).write(id(1), answer(1));
    const stale = join(dir, 'gone-writer');
    writeFileSync(stale, answer(2));
    const old = new Date(Date.now() - 11 * 60_000);
    utimesSync(stale, old, old);
    AnswerJournal.removeOlderThan(dir, 10 * 60_000);
    expect(existsSync(stale)).toBe(false);
    expect(AnswerJournal.of(dir).read(id(1))).toEqual(answer(1));
  });

  it('closing keeps the answers still wanted and removes an emptied file', () => {
    const dir = join(scratch.dir, 'db.answers');
    const journal = AnswerJournal.of(dir);
    journal.write(id(1), answer(1));
    journal.close();
    expect(journal.read(id(1))).toEqual(answer(1));
    journal.write(id(2), answer(2));
    expect(files(dir)).toHaveLength(2);
    journal.remove([id(2)]);
    journal.close();
    expect(files(dir)).toHaveLength(1);
    expect(journal.read(id(1))).toEqual(answer(1));
  });

  it('writes through the file operations it is given: a failed append keeps nothing, and the next one works', () => {
    const dir = join(scratch.dir, 'db.answers');
    let failNext = false;
    const fs: FileSystem = {
      ...nodeFileSystem,
      writeSync: ((...args: Parameters<typeof nodeFileSystem.writeSync>) => {
        if (!failNext) return (nodeFileSystem.writeSync as (...a: unknown[]) => number)(...args);
        failNext = false;
        throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
      }) as FileSystem['writeSync'],
    };
    const journal = AnswerJournal.of(dir, fs);
    journal.write(id(1), answer(1));
    failNext = true;
    expect(() => journal.write(id(2), answer(2))).toThrow('no space left');
    expect(journal.read(id(2))).toBeUndefined();
    journal.write(id(3), answer(3));
    expect(journal.size).toBe(2);
    expect(journal.read(id(1))).toEqual(answer(1));
    expect(journal.read(id(3))).toEqual(answer(3));
    expect(bytesIn(dir)).toBe(2 * (1 + 32 + 4 + 100));
  });
});
