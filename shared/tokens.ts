import { createHash, timingSafeEqual } from 'node:crypto';
import type { RandomSource } from './clock.js';

/** 32 random bytes (256 bits), url-safe: the claim token handed to the holder only. */
export function mintToken(random: RandomSource): string {
  return `bt_${random.bytes(32).toString('base64url')}`;
}

/** What the store keeps instead of a token: a copy of the database reveals none. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Compares two token hashes in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A session id: random, not a secret (it grants nothing without a token). */
export function mintSessionId(random: RandomSource): string {
  return random.bytes(8).toString('hex');
}
