import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { claimsTable } from '../../mcp-server/cli/tables.js';
import type { ClaimView } from '../../shared/types.js';

const NOW = Date.parse('2026-01-01T12:00:00.000Z');

function claim(key: string, lastActiveAt: string | null): ClaimView {
  return {
    key,
    title: `Title of ${key}`,
    agent: 'claude',
    session: 's1',
    branch: `baton/${key.toLowerCase()}`,
    worktree: null,
    claimedAt: new Date(NOW - 3_600_000).toISOString(),
    expiresAt: new Date(NOW + 600_000).toISOString(),
    lastRenewedAt: new Date(NOW - 60_000).toISOString(),
    renewer: null,
    secondsLeft: 600,
    checkpoint: null,
    lastActiveAt,
    overlaps: [],
  };
}

describe('the claims table', () => {
  const colours = pc.createColors(true);
  const row = (text: string, key: string) => text.split('\n').find((line) => line.includes(key))!;

  it('shows when each agent was last active, and "idle" in yellow past the idle limit', () => {
    const text = claimsTable(colours, [claim('BAT-1', new Date(NOW - 120_000).toISOString()), claim('BAT-2', new Date(NOW - 47 * 60_000).toISOString()), claim('BAT-3', null)], NOW, undefined, 40 * 60);
    expect(row(text, 'BAT-1')).toContain('2m ago');
    expect(row(text, 'BAT-1')).not.toContain('\x1b[33m');
    expect(row(text, 'BAT-2')).toContain(colours.yellow('idle 47m'));
    expect(row(text, 'BAT-3')).toMatch(/\s-\s/);
  });

  it('never says "idle" without an idle limit', () => {
    const text = claimsTable(colours, [claim('BAT-2', new Date(NOW - 47 * 60_000).toISOString())], NOW, undefined, 0);
    expect(row(text, 'BAT-2')).toContain('47m ago');
    expect(row(text, 'BAT-2')).not.toContain('idle');
  });
});
