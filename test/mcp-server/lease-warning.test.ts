import { describe, expect, it } from 'vitest';
import { renewEvery, untrackedLeaseWarning } from '../../mcp-server/lease-warning.js';
import type { Lease } from '../../shared/types.js';

const lease = (key: string, renewer: string | null): Lease => ({
  key,
  agent: 'a',
  branch: `baton/${key.toLowerCase()}`,
  worktree: null,
  claimedAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-01T00:30:00.000Z',
  lastRenewedAt: '2026-01-01T00:00:00.000Z',
  renewer,
  fence: 1,
  claimToken: 'bt_secret',
});

describe('renewEvery', () => {
  it.each([
    [1800, '10 minutes'],
    [900, '5 minutes'],
    [360, '2 minutes'],
    [300, '100 seconds'],
    [60, '20 seconds'],
    [3, '1 second'],
    [1, '0.3 seconds'],
  ])('asks for a renewal every third of a %d s lease: %s', (seconds, words) => {
    expect(renewEvery(seconds)).toBe(words);
  });
});

describe('untrackedLeaseWarning', () => {
  it('writes one line per untracked lease, once, naming the key and the interval but never the token', () => {
    const lines: string[] = [];
    const warn = untrackedLeaseWarning(1800, (line) => lines.push(line));
    warn([lease('BAT-1', null)]);
    warn([lease('BAT-1', null), lease('BAT-2', 'vscode:w1')]);
    warn([lease('BAT-3', null)]);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain('BAT-1');
    expect(lines[0]).toContain('every 10 minutes');
    expect(lines[1]).toContain('BAT-3');
    for (const line of lines) {
      expect(line).not.toContain('bt_secret');
      expect(line).not.toContain('\n');
    }
  });
});
