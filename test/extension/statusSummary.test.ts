import { describe, expect, it } from 'vitest';
import { batonError } from '../../shared/errors.js';
import { summarize } from '../../extension/model/statusSummary.js';
import type { TreeContext } from '../../extension/model/buildTree.js';
import { claim, session, snapshot, T0, WINDOW } from './fixtures.js';

const ctx: TreeContext = { now: T0, warningSeconds: 300, renewer: WINDOW, isAlive: () => true };
const ready = (claims = [claim('BAT-1', 20 * 60_000)]) => ({ kind: 'ready' as const, snapshot: snapshot({ claims, sessions: [session('s-1', { renewer: WINDOW })] }), dbPath: '/db' });

describe('status bar summary', () => {
  it('shows the number of live claims and the nearest expiry', () => {
    const s = summarize(ready([claim('BAT-1', 20 * 60_000), claim('BAT-2', 12 * 60_000 + 34_000)]), ctx)!;
    expect(s.text).toBe('$(checklist) 2 claims · 12:34');
    expect(s.tooltip).toContain('**BAT-2**');
    expect(s.warning).toBe(false);
  });

  it('warns when the nearest expiry is within the threshold', () => {
    expect(summarize(ready([claim('BAT-1', 299_000)]), ctx)!.warning).toBe(true);
  });

  it('counts the claims this window keeps alive', () => {
    const s = summarize(ready([claim('BAT-1', 600_000, { renewer: WINDOW, session: 's-1' })]), ctx)!;
    expect(s.text).toBe('$(checklist) 1 claim · 10:00');
    expect(s.tooltip).toContain('This window keeps 1 of them alive.');
  });

  it('ignores claims past their expiry', () => {
    expect(summarize(ready([claim('BAT-1', -1)]), ctx)!.text).toBe('$(checklist) 0 claims');
  });

  it('hides without a folder, and says why it cannot read the database', () => {
    expect(summarize({ kind: 'noWorkspace' }, ctx)).toBeNull();
    const error = summarize({ kind: 'error', error: batonError('STORE_UNAVAILABLE', 'locked') }, ctx)!;
    expect(error).toMatchObject({ text: '$(warning) Baton', warning: true });
    expect(summarize({ kind: 'noDatabase', dbPath: '/db' }, ctx)!.tooltip).toMatch(/No Baton database/);
  });
});
