import { BATON_APPLICATION_ID, SQLITE_MIGRATIONS } from '../sqlite-schema.js';

/** The schema version this build brings a database to: the number of migrations. */
export const LATEST_SCHEMA_VERSION = SQLITE_MIGRATIONS.length;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');
const HEADER_SIZE = 100;

/** What the 100-byte SQLite header says about a snapshot. */
export interface SnapshotHeader {
  pageSize: number;
  pageCount: number;
  userVersion: number;
  applicationId: number;
}

/**
 * Checks a snapshot's bytes before anything is done with them, and answers why it
 * must be refused (undefined when it may be opened). Only reads: a file that is not
 * ours, is truncated, or comes from a newer Baton is reported and left alone.
 */
export function snapshotProblem(bytes: Uint8Array): string | undefined {
  if (bytes.length < HEADER_SIZE || !SQLITE_MAGIC.equals(bytes.subarray(0, SQLITE_MAGIC.length))) {
    return 'not a Baton database (not an SQLite file)';
  }
  const header = readSnapshotHeader(bytes);
  if (header.applicationId !== BATON_APPLICATION_ID) {
    return `not a Baton database (SQLite application_id ${hex(header.applicationId)}, expected ${hex(BATON_APPLICATION_ID)})`;
  }
  if (header.userVersion > LATEST_SCHEMA_VERSION) {
    return `created by a newer Baton (schema ${header.userVersion}; this one knows ${LATEST_SCHEMA_VERSION})`;
  }
  if (header.pageSize < 512 || (header.pageSize & (header.pageSize - 1)) !== 0) {
    return `corrupt database header (page size ${header.pageSize})`;
  }
  if (bytes.length % header.pageSize !== 0 || (header.pageCount > 0 && bytes.length < header.pageCount * header.pageSize)) {
    return `truncated database file (${bytes.length} bytes; the header promises ${header.pageCount} pages of ${header.pageSize})`;
  }
  return undefined;
}

/** Decodes the header fields the store cares about (big-endian, as SQLite writes them). */
export function readSnapshotHeader(bytes: Uint8Array): SnapshotHeader {
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_SIZE);
  const rawPageSize = view.getUint16(16);
  // The in-header page count is only trustworthy when its "valid for" counter matches.
  const countValid = view.getUint32(24) === view.getUint32(92);
  return {
    pageSize: rawPageSize === 1 ? 65536 : rawPageSize,
    pageCount: countValid ? view.getUint32(28) : 0,
    userVersion: view.getUint32(60),
    applicationId: view.getUint32(68),
  };
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}
