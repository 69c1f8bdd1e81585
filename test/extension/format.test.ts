import { describe, expect, it } from 'vitest';
import { escapeMarkdown, firstLine, formatAgo, formatCountdown, formatTime } from '../../extension/model/format.js';
import { iso, T0 } from './fixtures.js';

describe('formatCountdown', () => {
  it.each([
    [29 * 60_000 + 41_000, '29:41'],
    [5 * 60_000, '5:00'],
    [61_000, '1:01'],
    [9_000, '0:09'],
    [3_723_000, '1:02:03'],
    [86_400_000, '24:00:00'],
  ])('shows %i ms left as %s', (ms, text) => {
    expect(formatCountdown(ms)).toBe(text);
  });

  it('rounds a part second up, so a live lease never shows 0:00', () => {
    expect(formatCountdown(1)).toBe('0:01');
    expect(formatCountdown(59_001)).toBe('1:00');
  });

  it('says expired at and after the expiry', () => {
    expect(formatCountdown(0)).toBe('expired');
    expect(formatCountdown(-5_000)).toBe('expired');
  });
});

describe('formatAgo', () => {
  it.each([
    [2_000, 'just now'],
    [42_000, '42 s ago'],
    [5 * 60_000, '5 min ago'],
    [3 * 3_600_000, '3 h ago'],
    [3 * 86_400_000, '3 days ago'],
  ])('shows a time %i ms ago as %s', (ago, text) => {
    expect(formatAgo(iso(T0 - ago), T0)).toBe(text);
  });
});

describe('text helpers', () => {
  it('shows times in UTC to the second', () => {
    expect(formatTime(iso(T0))).toBe('2026-01-01 12:00:00 UTC');
  });

  it('keeps the first line of a note, cut with an ellipsis', () => {
    expect(firstLine('Parsed the header\nnext: the body')).toBe('Parsed the header');
    expect(firstLine('x'.repeat(100), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('escapes markdown so a title shows as typed', () => {
    expect(escapeMarkdown('*wip* [x](y) `z`')).toBe('\\*wip\\* \\[x\\](y) \\`z\\`');
    expect(escapeMarkdown('# not a heading\n- not a list')).toBe('\\# not a heading\n\\- not a list');
  });

  it('leaves keys, names and paths readable', () => {
    expect(escapeMarkdown('BAT-1 claude-code /repo/a.ts v1.2!')).toBe('BAT-1 claude-code /repo/a.ts v1.2!');
  });
});
