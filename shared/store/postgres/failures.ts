/**
 * What a failure from pg means to the store. PostgreSQL reports SQLSTATE codes
 * (`err.code`, five characters); Node's sockets report errno names (`ECONNREFUSED`);
 * pg itself throws plain Errors for a few connection states, told apart by message.
 */
export type FailureKind =
  /** The server cannot be reached or dropped the connection: worth a few more tries. */
  | 'connection'
  /**
   * The server answered but cannot serve us (password, missing database, privilege, disk
   * full, I/O error, corruption): no retry helps.
   */
  | 'refused'
  /**
   * Another transaction won a race (serialization failure, deadlock, or a unique key it
   * inserted first): run the transaction again, which then sees the winner's rows.
   */
  | 'conflict'
  /** A lock was held past `lock_timeout`, or a statement ran past `statement_timeout`: busy beyond the wait limit. */
  | 'busy'
  /** Anything else: a bug in a statement, raised to the caller as it is. */
  | 'other';

const SOCKET_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOENT', // a unix socket path that does not exist (server not started)
]);

// Errors pg raises without a code when a connection ends or never starts.
const PG_CONNECTION_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Client was closed and is not queryable',
  'connection timeout',
];

/** Sorts a thrown value into one of the kinds above. */
export function classifyFailure(err: unknown): FailureKind {
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : '';
  const message = err instanceof Error ? err.message : String(err);
  // Under READ COMMITTED a unique violation is how a race between two inserts of the same
  // key shows (two repeats of one requestId, say); the file store's lock rules it out.
  if (code === '40001' || code === '40P01' || code === '23505') return 'conflict';
  if (code === '55P03' || code === '57014') return 'busy';
  if (SOCKET_ERRNOS.has(code)) return 'connection';
  // Class 08: connection exception. 57P01..57P03: the server is shutting down or
  // starting up. 53300: too many connections, which frees up on its own.
  if (code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300') {
    return 'connection';
  }
  // Class 28: bad password or role. 3D000: no such database. 42501: no privilege.
  // Classes 53 (out of disk or memory), 58 (I/O error), XX (internal error, corruption).
  if (code.startsWith('28') || code === '3D000' || code === '42501') return 'refused';
  if (code.startsWith('53') || code.startsWith('58') || code.startsWith('XX')) return 'refused';
  if (!code && PG_CONNECTION_MESSAGES.some((m) => message.includes(m))) return 'connection';
  return 'other';
}

/** A deadlock (40P01) or serialization failure (40001): two writers' transactions crossed. */
export function isWriteRace(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === '40001' || code === '40P01';
}

/** One line for a person: the server's message, with its SQLSTATE or errno when there is one. */
export function describeFailure(err: unknown): string {
  const code = (err as { code?: unknown })?.code;
  const message = err instanceof Error ? err.message : String(err);
  return typeof code === 'string' && code && !message.includes(code) ? `${message} (${code})` : message;
}
