/** The error codes of docs/protocol.md section 6: the only ways Baton refuses a call. */
export const ERROR_CODES = [
  'INVALID_INPUT',
  'NOT_FOUND',
  'ALREADY_CLAIMED',
  'BLOCKED',
  'NOT_READY',
  'CLAIM_LOST',
  'CLAIM_MISMATCH',
  'FORBIDDEN',
  'CYCLE',
  'STUCK',
  'STORE_UNAVAILABLE',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/** A refusal: a code from the protocol, a sentence for people and models, and the details the protocol names. */
export interface BatonError {
  code: ErrorCode;
  message: string;
  [detail: string]: unknown;
}

/** Why a claim token is not the live one (the `reason` of `CLAIM_LOST`). */
export type ClaimLostReason = 'expired' | 'reclaimed' | 'released' | 'finished' | 'superseded' | 'never issued';

/** Builds a refusal with its details. */
export function batonError(code: ErrorCode, message: string, details: Record<string, unknown> = {}): BatonError {
  return { code, message, ...details };
}

/**
 * Thrown only by a store that cannot be used (locked past the wait limit, unreadable,
 * corrupt, from a newer schema). The service turns it into a `STORE_UNAVAILABLE` result.
 */
export class StoreUnavailableError extends Error {
  readonly code = 'STORE_UNAVAILABLE' as const;
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`The Baton database at ${path} is unavailable: ${reason}`);
    this.name = 'StoreUnavailableError';
  }
}
