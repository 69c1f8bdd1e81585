/**
 * Thrown by a rule whose write found that a row it had read changed since: another
 * transaction committed in between, so what the rule decided no longer holds and the whole
 * transaction must run again. Only PostgreSQL lets that happen (its writers run at READ
 * COMMITTED); the file store runs one write at a time, so there it is never thrown.
 *
 * It carries PostgreSQL's SQLSTATE for a serialization failure, `40001`, which means exactly
 * this, so the PostgreSQL store runs the transaction again as it does any serialization
 * failure, and answers STORE_UNAVAILABLE if the race keeps being lost.
 */
export class WriteConflictError extends Error {
  readonly code = '40001';
  constructor(what: string) {
    super(`could not serialize access due to concurrent update: ${what}`);
    this.name = 'WriteConflictError';
  }
}
