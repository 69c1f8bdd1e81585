/** Where SQLite says things are in the database file. */
export interface FileLayout {
  pageSize: number;
  pageCount: number;
  /** The page of the state table, whose one row fits on it. */
  stateRoot: number;
}

/** What the one row of the store's state table says. */
export interface StateRow {
  appliedSeq: number;
  databaseId: string;
}

/**
 * The database file's bytes as a view of `array`, the array it was opened in (see
 * `DatabaseImage`), when that array still is the file: then a new snapshot is written
 * without first copying the whole database (sql.js's `export()` makes one full copy, as
 * large as the database, at the moment the writer's memory peaks).
 * Undefined when it may not be.
 *
 * sql.js keeps the file in one array, and replaces that array when the file outgrows
 * it or is cut shorter (a rollback of a transaction that grew it). Rather than trust a
 * list of those events, the view is checked against the row just written: the state
 * table's page in the array must hold `expected`. A replaced array holds an older row,
 * since every commit before this one advanced the applied seq past what the array last
 * saw, so it is never written out.
 *
 * The view shares memory with the live database: write it out before the next statement.
 */
export function fileInPlace(array: Uint8Array, layout: FileLayout, expected: StateRow): Uint8Array | undefined {
  const { pageSize, pageCount, stateRoot } = layout;
  const size = pageSize * pageCount;
  if (size === 0 || size > array.length || stateRoot < 1 || stateRoot > pageCount) return undefined;
  const bytes = array.subarray(0, size);
  let row: StateRow | undefined;
  try {
    row = onlyRow(bytes.subarray((stateRoot - 1) * pageSize, stateRoot * pageSize), stateRoot === 1 ? 100 : 0);
  } catch {
    // A page that is not what it should be reads past its end.
    return undefined;
  }
  return row && row.appliedSeq === expected.appliedSeq && row.databaseId === expected.databaseId ? bytes : undefined;
}

/**
 * The single row of a one-row table from its b-tree leaf page: (id INTEGER PRIMARY KEY,
 * applied_seq INTEGER, database_id TEXT), in SQLite's record format. Undefined for
 * anything else, including a row spilling onto an overflow page.
 */
function onlyRow(page: Uint8Array, header: number): StateRow | undefined {
  const view = new DataView(page.buffer, page.byteOffset, page.byteLength);
  const LEAF_TABLE = 0x0d;
  if (page[header] !== LEAF_TABLE || view.getUint16(header + 3) !== 1) return undefined;
  let at = view.getUint16(header + 8);
  if (at === 0 || at >= page.length) return undefined;
  const [payloadSize, afterSize] = varint(page, at);
  const [, afterRowid] = varint(page, afterSize);
  at = afterRowid;
  if (at + payloadSize > page.length) return undefined;
  const [headerSize, firstType] = varint(page, at);
  const types: number[] = [];
  for (let t = firstType; t < at + headerSize; ) {
    const [type, next] = varint(page, t);
    types.push(type);
    t = next;
  }
  // The id is the rowid: stored as NULL in the record.
  if (types.length !== 3 || types[0] !== 0) return undefined;
  let body = at + headerSize;
  const seq = integer(view, body, types[1]);
  if (seq === undefined) return undefined;
  body += seq.width;
  const textType = types[2];
  if (textType < 13 || textType % 2 === 0) return undefined;
  const length = (textType - 13) / 2;
  if (body + length > at + payloadSize) return undefined;
  return { appliedSeq: seq.value, databaseId: Buffer.from(page.buffer, page.byteOffset + body, length).toString('utf8') };
}

/** An integer of serial type `type` at `at`: its value and how many bytes it takes. */
function integer(view: DataView, at: number, type: number): { value: number; width: number } | undefined {
  if (type === 8) return { value: 0, width: 0 };
  if (type === 9) return { value: 1, width: 0 };
  const width = [0, 1, 2, 3, 4, 6, 8][type];
  if (!width) return undefined;
  let value = 0n;
  for (let i = 0; i < width; i++) value = (value << 8n) | BigInt(view.getUint8(at + i));
  // Two's complement of `width` bytes.
  if (value >= 1n << BigInt(width * 8 - 1)) value -= 1n << BigInt(width * 8);
  return { value: Number(value), width };
}

/** A SQLite varint at `at`: its value and where the next field starts. */
function varint(bytes: Uint8Array, at: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = bytes[at + i];
    if (byte === undefined) throw new RangeError('past the end of the page');
    value = value * 128 + (byte & 0x7f);
    if (byte < 0x80) return [value, at + i + 1];
  }
  const last = bytes[at + 8];
  if (last === undefined) throw new RangeError('past the end of the page');
  return [value * 256 + last, at + 9];
}
