import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seal, unseal } from '../../shared/forwarding/seal.js';

describe('a sealed answer', () => {
  const key = randomBytes(32);
  const answer = { result: { ok: true, value: { claimToken: 'secret-token' } }, tokens: [] };

  it('opens with its key to what was sealed, and shows none of it', () => {
    const sealed = seal(key, answer);
    expect(sealed.toString('latin1')).not.toContain('secret-token');
    expect(unseal(key, sealed)).toEqual(answer);
  });

  it('takes a fresh IV every time, past the pool the IVs are drawn from', () => {
    const ivs = new Set<string>();
    for (let i = 0; i < 600; i++) ivs.add(seal(key, answer).subarray(0, 12).toString('hex'));
    expect(ivs.size).toBe(600);
  });

  it('refuses another key, and any byte changed', () => {
    const sealed = seal(key, answer);
    expect(() => unseal(randomBytes(32), sealed)).toThrow();
    for (const at of [0, 12, 28, sealed.length - 1]) {
      const changed = Buffer.from(sealed);
      changed[at] ^= 1;
      expect(() => unseal(key, changed)).toThrow();
    }
  });
});
