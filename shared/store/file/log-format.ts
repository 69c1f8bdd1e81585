import { randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { SqlValue } from '../store.js';

/**
 * The operation log's bytes. A header, then records, each framed so that a reader can
 * tell a complete record from the torn tail a killed writer leaves:
 *
 *   header  = "BATONLOG" | u32 format | u32 crc | u64 baseSeq | 16-byte log id   (40 bytes)
 *   record  = u32 payload length | u32 crc | u64 seq | payload (UTF-8 JSON)
 *
 * Little-endian throughout. A record's crc covers its length, seq and payload. `baseSeq`
 * is the sequence number the log continues from: its first record is baseSeq + 1. The
 * log id tells two logs apart even when the file system reuses an inode.
 */
export const LOG_MAGIC = Buffer.from('BATONLOG', 'latin1');
/** The format version this build writes and reads. */
export const LOG_FORMAT = 1;
/** Bytes of the log header. */
export const LOG_HEADER_SIZE = 56;
/** Bytes of a record's framing before its payload. */
export const RECORD_HEADER_SIZE = 16;
/** A record larger than this is treated as corrupt framing rather than allocated. */
export const MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** Where in a record's framing the upper four bytes of its seq sit. */
const SEQ_UPPER_AT = 12;

/** One statement as executed: SQL text and its parameters. */
export type LoggedStatement = readonly [sql: string, params: readonly SqlValue[]];

/** The header of a log file. */
export interface LogHeader {
  baseSeq: number;
  logId: string;
  /** The database this log continues: a log is only ever replayed onto its own snapshot. */
  databaseId: string;
}

/** A decoded record and where it sits in the file. */
export interface LogRecord {
  seq: number;
  crc: number;
  /** Offset of the record's first byte. */
  start: number;
  /** Offset just past the record. */
  end: number;
  statements: LoggedStatement[];
}

/** Builds the header of a new log continuing database `databaseId` (32 hex digits) from `baseSeq`. */
export function encodeLogHeader(baseSeq: number, databaseId: string): Buffer {
  const header = Buffer.alloc(LOG_HEADER_SIZE);
  LOG_MAGIC.copy(header, 0);
  header.writeUInt32LE(LOG_FORMAT, 8);
  header.writeBigUInt64LE(BigInt(baseSeq), 16);
  randomBytes(16).copy(header, 24);
  Buffer.from(databaseId, 'hex').copy(header, 40, 0, 16);
  header.writeUInt32LE(headerCrc(header), 12);
  return header;
}

/** Decodes a log header, or answers why these bytes are not one. */
export function decodeLogHeader(bytes: Buffer): LogHeader | { problem: string } {
  if (bytes.length < LOG_HEADER_SIZE || !LOG_MAGIC.equals(bytes.subarray(0, LOG_MAGIC.length))) {
    return { problem: 'not a Baton operation log (bad header)' };
  }
  const format = bytes.readUInt32LE(8);
  if (format > LOG_FORMAT) return { problem: `operation log written by a newer Baton (format ${format}; this one knows ${LOG_FORMAT})` };
  if (format !== LOG_FORMAT || bytes.readUInt32LE(12) !== headerCrc(bytes)) {
    return { problem: 'corrupt operation log header (checksum mismatch)' };
  }
  return { baseSeq: Number(bytes.readBigUInt64LE(16)), logId: bytes.toString('hex', 24, 40), databaseId: bytes.toString('hex', 40, 56) };
}

function headerCrc(header: Buffer): number {
  return crc32(header.subarray(16, LOG_HEADER_SIZE), crc32(header.subarray(0, 12)));
}

/**
 * Encodes one committed transaction. Statement texts are listed once per record and
 * referred to by index: a transaction often repeats one statement (labels, batches).
 */
export function encodeRecord(seq: number, statements: readonly LoggedStatement[]): Buffer {
  const texts: string[] = [];
  const index = new Map<string, number>();
  const ops = statements.map(([sql, params]) => {
    let i = index.get(sql);
    if (i === undefined) {
      i = texts.length;
      texts.push(sql);
      index.set(sql, i);
    }
    return [i, params];
  });
  const payload = Buffer.from(JSON.stringify([texts, ops]), 'utf8');
  const record = Buffer.allocUnsafe(RECORD_HEADER_SIZE + payload.length);
  record.writeUInt32LE(payload.length, 0);
  record.writeBigUInt64LE(BigInt(seq), 8);
  payload.copy(record, RECORD_HEADER_SIZE);
  record.writeUInt32LE(recordCrc(record, payload.length), 4);
  return record;
}

function recordCrc(bytes: Buffer, payloadLength: number): number {
  return crc32(bytes.subarray(8, RECORD_HEADER_SIZE + payloadLength), crc32(bytes.subarray(0, 4)));
}

/**
 * Decodes the complete records at the start of `bytes` (which begins at file offset
 * `offset`). Stops at the first incomplete or damaged record. That is a torn tail, to be
 * cut off by the next writer, only when no complete record follows it: a writer killed in
 * its append leaves the last record torn, and the next one cuts it off before appending.
 * Complete records after the damage mean something else damaged the file, and they may be
 * writes already acknowledged: then `damagedAt` says where the damage is, and nobody may
 * read past it or cut it off. `seqBefore` is the seq of the record just before `bytes`
 * (the log's base seq at its start); `skipThrough` avoids parsing records already applied.
 */
export function decodeRecords(
  bytes: Buffer,
  offset: number,
  seqBefore: number,
  skipThrough: number,
): { records: LogRecord[]; validEnd: number; damagedAt?: number } {
  const records: LogRecord[] = [];
  let at = 0;
  while (bytes.length - at >= RECORD_HEADER_SIZE) {
    const framed = framedRecordAt(bytes, at);
    const seq = framed ? Number(framed.readBigUInt64LE(8)) : 0;
    const statements = !framed ? undefined : seq <= skipThrough ? [] : decodePayload(framed.subarray(RECORD_HEADER_SIZE));
    if (!framed || !statements) {
      const previousSeq = records.length > 0 ? records[records.length - 1].seq : seqBefore;
      if (completeRecordAfter(bytes, at, previousSeq)) return { records, validEnd: offset + at, damagedAt: offset + at };
      break;
    }
    const end = at + framed.length;
    records.push({ seq, crc: framed.readUInt32LE(4), start: offset + at, end: offset + end, statements });
    at = end;
  }
  return { records, validEnd: offset + at };
}

/** The record framed at `at` when it is whole and its checksum holds. */
function framedRecordAt(bytes: Buffer, at: number): Buffer | undefined {
  const length = bytes.readUInt32LE(at);
  if (length > MAX_RECORD_BYTES || bytes.length - at - RECORD_HEADER_SIZE < length) return undefined;
  const framed = bytes.subarray(at, at + RECORD_HEADER_SIZE + length);
  return recordCrc(framed, length) === framed.readUInt32LE(4) ? framed : undefined;
}

/**
 * Whether a whole, checksummed record starts anywhere after the damaged one at `at`. Its
 * own length may be what is damaged, so the next record may start at any offset; only
 * those holding a seq that can follow `previousSeq` are tried. They are found by the
 * seq's upper four bytes, with a native search: a large record still being written,
 * whose JSON holds no such bytes, is passed over at memory speed, not offset by offset.
 */
function completeRecordAfter(bytes: Buffer, at: number, previousSeq: number): boolean {
  const lastSeq = previousSeq + Math.ceil((bytes.length - at) / RECORD_HEADER_SIZE);
  for (const high of new Set([upperWord(previousSeq + 1), upperWord(lastSeq)])) {
    const pattern = Buffer.alloc(4);
    pattern.writeUInt32LE(high);
    for (let found = bytes.indexOf(pattern, at + 1 + SEQ_UPPER_AT); found >= 0; found = bytes.indexOf(pattern, found + 1)) {
      const start = found - SEQ_UPPER_AT;
      if (bytes.length - start < RECORD_HEADER_SIZE) break;
      const seq = Number(bytes.readBigUInt64LE(start + 8));
      if (seq > previousSeq && seq <= lastSeq && framedRecordAt(bytes, start)) return true;
    }
  }
  return false;
}

/** The upper 32 bits of a seq. */
function upperWord(seq: number): number {
  return Math.floor(seq / 2 ** 32);
}

function decodePayload(payload: Buffer): LoggedStatement[] | undefined {
  try {
    const [texts, ops] = JSON.parse(payload.toString('utf8')) as [string[], [number, SqlValue[]][]];
    return ops.map(([i, params]) => [texts[i], params] as const);
  } catch {
    // A checksummed record that does not parse was not written by this format: treat as torn.
    return undefined;
  }
}
