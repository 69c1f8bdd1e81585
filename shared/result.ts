import type { BatonError, ErrorCode } from './errors.js';
import { batonError } from './errors.js';

/** What every exported core operation returns: a value, or a refusal with a protocol code. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: BatonError };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function fail<T = never>(code: ErrorCode, message: string, details: Record<string, unknown> = {}): Result<T> {
  return { ok: false, error: batonError(code, message, details) };
}
