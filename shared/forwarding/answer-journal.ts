import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { errnoCode, type FileSystem, nodeFileSystem, readAt, unlinkIfPresent } from '../store/file-access.js';
import { FORWARDED_KEPT_MS } from './wire.js';

/** Past this size a journal file takes no more answers: the next starts another. */
const ROTATE_BYTES = 256 * 1024;
/**
 * Nor does one left alone this long, well short of the age at which any process may
 * remove it (`FORWARDED_KEPT_MS`): an answer must never go into a file already removed.
 */
const ROTATE_IDLE_MS = 60_000;

/** One file of the journal, appended to by this process only. */
interface JournalFile {
  path: string;
  /** Open while answers are appended to it. */
  fd: number | undefined;
  size: number;
  /** Answers in it that nobody has confirmed yet. */
  live: number;
  /** When an answer was last appended to it. */
  appendedAt: number;
}

interface Kept {
  file: JournalFile;
  /** Where the sealed bytes start in the file, and how many there are. */
  at: number;
  length: number;
}

/**
 * The sealed answers of the forwarded writes this process ran, kept beside the database
 * (in a folder only its owner can read) until their callers confirm them. Each process
 * appends to files of its own, one entry per request id: one system call per answer
 * rather than creating and removing a file for each, which cost the server writing for
 * the others a sixth of its time. A file goes once none of its answers is still wanted;
 * one whose writer died goes by age (`removeOlderThan`).
 *
 * An entry is the id's length (one byte), the id, the sealed answer's length (four
 * bytes, little-endian) and the answer. Whoever looks for an answer stops reading a
 * file at an entry that ends past the file's end: one being appended as it reads, or
 * cut short when its writer died.
 */
export class AnswerJournal {
  private static readonly journals = new Map<string, AnswerJournal>();

  private current: JournalFile | undefined;
  private readonly kept = new Map<string, Kept>();

  private constructor(
    private readonly dir: string,
    private readonly fs: FileSystem,
  ) {}

  /** This process's journal in the folder `dir`, through `fs` (the store's file operations) when it is first asked for. */
  static of(dir: string, fs: FileSystem = nodeFileSystem): AnswerJournal {
    let journal = AnswerJournal.journals.get(dir);
    if (!journal) {
      journal = new AnswerJournal(dir, fs);
      AnswerJournal.journals.set(dir, journal);
    }
    return journal;
  }

  /** How many answers this process keeps. */
  get size(): number {
    return this.kept.size;
  }

  /** Keeps `sealed` as the answer of request `id`; throws, keeping nothing, when it cannot. */
  write(id: string, sealed: Buffer): void {
    const now = Date.now();
    const current = this.current;
    const file = current && current.size < ROTATE_BYTES && now - current.appendedAt < ROTATE_IDLE_MS ? current : this.rotate();
    const head = Buffer.alloc(1 + id.length + 4);
    head.writeUInt8(id.length, 0);
    head.write(id, 1, 'latin1');
    head.writeUInt32LE(sealed.length, 1 + id.length);
    const entry = Buffer.concat([head, sealed]);
    try {
      if (this.fs.writeSync(file.fd!, entry) !== entry.length) throw new Error(`short write to ${file.path}`);
    } catch (error) {
      this.cutBack(file);
      throw error;
    }
    this.kept.set(id, { file, at: file.size + head.length, length: sealed.length });
    file.size += entry.length;
    file.live++;
    file.appendedAt = now;
  }

  /** The sealed answer of request `id`, kept by this process or by any other; undefined when none is kept. */
  read(id: string): Buffer | undefined {
    const own = this.kept.get(id);
    if (own) return readEntry(this.fs, own.file.path, own.at, own.length);
    let names: string[];
    try {
      names = this.fs.readdirSync(this.dir);
    } catch {
      return undefined;
    }
    for (const name of names) {
      const found = findIn(this.fs, join(this.dir, name), id);
      if (found) return found;
    }
    return undefined;
  }

  /** Forgets the answers of `ids` (confirmed, or too old to wait for); a file none of whose answers is wanted goes. */
  remove(ids: readonly string[]): void {
    for (const id of ids) {
      const kept = this.kept.get(id);
      if (!kept) continue;
      this.kept.delete(id);
      const { file } = kept;
      if (--file.live > 0) continue;
      if (file !== this.current) unlinkIfPresent(this.fs, file.path);
      else if (file.size > 0) this.empty(file);
    }
  }

  /** Closes the file being appended to; the answers in it can still be read. */
  close(): void {
    const file = this.current;
    if (!file) return;
    this.current = undefined;
    if (file.fd !== undefined) this.fs.closeSync(file.fd);
    file.fd = undefined;
    if (file.live === 0) unlinkIfPresent(this.fs, file.path);
  }

  /** Removes journal files untouched for `ms`: those of a writer that died, whose answers nobody can still want. */
  static removeOlderThan(dir: string, ms: number, fs: FileSystem = nodeFileSystem, now = Date.now()): void {
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const name of names) {
      const path = join(dir, name);
      try {
        if (now - fs.statSync(path).mtimeMs > ms) unlinkIfPresent(fs, path);
      } catch {
        // Removed meanwhile.
      }
    }
  }

  private rotate(): JournalFile {
    const previous = this.current;
    this.close();
    // Made with the first answer, not with the database: most databases never need it.
    this.fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const path = join(this.dir, `${process.pid}-${randomBytes(6).toString('hex')}`);
    const file: JournalFile = { path, fd: this.fs.openSync(path, 'a', 0o600), size: 0, live: 0, appendedAt: Date.now() };
    this.current = file;
    if (previous) AnswerJournal.removeOlderThan(this.dir, FORWARDED_KEPT_MS, this.fs);
    return file;
  }

  /** A file with no answer left to give is emptied rather than left to grow. */
  private empty(file: JournalFile): void {
    try {
      this.fs.ftruncateSync(file.fd!, 0);
      file.size = 0;
    } catch {
      // Then it grows until it is rotated out.
    }
  }

  /** After a failed append: cut off what part of the entry made it, or give the file up. */
  private cutBack(file: JournalFile): void {
    try {
      this.fs.ftruncateSync(file.fd!, file.size);
    } catch {
      if (this.current === file) this.close();
    }
  }
}

/** The `length` bytes at `at` in the file at `path`; undefined when the file or the bytes are gone. */
function readEntry(fs: FileSystem, path: string, at: number, length: number): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const bytes = readAt(fs, fd, length, at);
    return bytes.length === length ? bytes : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** The whole file at `path`; undefined when it cannot be read. */
function readWhole(fs: FileSystem, path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(path, 'r');
    return readAt(fs, fd, fs.fstatSync(fd).size, 0);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** The last complete entry for `id` in the journal file at `path`. */
function findIn(fs: FileSystem, path: string, id: string): Buffer | undefined {
  const bytes = readWhole(fs, path);
  if (!bytes) return undefined;
  let found: Buffer | undefined;
  let at = 0;
  while (at < bytes.length) {
    const idLength = bytes.readUInt8(at);
    const lengthAt = at + 1 + idLength;
    if (lengthAt + 4 > bytes.length) break;
    const length = bytes.readUInt32LE(lengthAt);
    const end = lengthAt + 4 + length;
    if (end > bytes.length) break;
    if (bytes.toString('latin1', at + 1, lengthAt) === id) found = bytes.subarray(lengthAt + 4, end);
    at = end;
  }
  return found;
}
