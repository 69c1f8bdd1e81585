import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { iso } from '../../shared/rules/rows.js';

const LAST_FOUR_DIGIT_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('iso', () => {
  it('writes what Date writes, for any millisecond of the years 1970 to 9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: LAST_FOUR_DIGIT_MS }), (ms) => {
        expect(iso(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 50_000 },
    );
  });

  it('writes what Date writes at the edges of days, months, leap years and centuries', () => {
    const edges = [
      0,
      LAST_FOUR_DIGIT_MS,
      Date.UTC(1972, 1, 29),
      Date.UTC(2000, 1, 29, 23, 59, 59, 999),
      Date.UTC(2000, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2100, 2, 1),
      Date.UTC(2400, 1, 29),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1),
    ];
    for (const ms of edges.flatMap((edge) => [edge - 1, edge, edge + 1]).filter((ms) => ms >= 0)) {
      expect(iso(ms)).toBe(new Date(ms).toISOString());
    }
    // Every day of four centuries at noon: each month's length, each leap rule.
    for (let day = 0; day < 146_097; day++) {
      const ms = Date.UTC(2000, 0, 1, 12) + day * 86_400_000;
      expect(iso(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it('leaves to Date what it does not write itself, errors included', () => {
    for (const ms of [-1, -86_400_001, LAST_FOUR_DIGIT_MS + 1, 8.64e15, -8.64e15, 1.5, 1_764_000_000_000.25]) {
      expect(iso(ms)).toBe(new Date(ms).toISOString());
    }
    expect(() => iso(Number.NaN)).toThrow(RangeError);
    expect(() => iso(8.64e15 + 1)).toThrow(RangeError);
  });
});
