import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config.js';
import { refusal, value } from '../helpers/core.js';
import { testDir } from '../helpers/test-dir.js';

function repoWith(config: unknown): string {
  const dir = testDir('baton-config-');
  writeFileSync(join(dir, '.baton.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return dir;
}

describe('settings', () => {
  it('uses the defaults without a file', () => {
    expect(value(loadConfig({ repoRoot: null, env: {} }))).toEqual({ prefix: 'BAT', leaseSeconds: 1800, requireReview: false, idleSeconds: 3600, checkpointNudgeSeconds: 600 });
  });

  it('reads idleSeconds and checkpointNudgeSeconds from the file and the environment, 0 meaning no limit', () => {
    const dir = repoWith({ idleSeconds: 120, checkpointNudgeSeconds: 0 });
    expect(value(loadConfig({ repoRoot: dir, env: {} }))).toMatchObject({ idleSeconds: 120, checkpointNudgeSeconds: 0 });
    expect(value(loadConfig({ repoRoot: dir, env: { BATON_IDLE_SECONDS: '0', BATON_CHECKPOINT_NUDGE_SECONDS: '30' } }))).toMatchObject({
      idleSeconds: 0,
      checkpointNudgeSeconds: 30,
    });
  });

  it('reads .baton.json and lets the environment win over it', () => {
    const dir = repoWith({ prefix: 'web', leaseSeconds: 600, requireReview: true });
    expect(value(loadConfig({ repoRoot: dir, env: {} }))).toMatchObject({ prefix: 'WEB', leaseSeconds: 600, requireReview: true });
    expect(value(loadConfig({ repoRoot: dir, env: { BATON_LEASE_SECONDS: '60', BATON_REQUIRE_REVIEW: 'false' } }))).toMatchObject({ leaseSeconds: 60, requireReview: false });
  });

  it.each([
    [{ leaseSeconds: 0 }, 'leaseSeconds'],
    [{ leaseSeconds: 86_401 }, 'leaseSeconds'],
    [{ leaseSeconds: '60' }, 'leaseSeconds'],
    [{ idleSeconds: -1 }, 'idleSeconds'],
    [{ idleSeconds: 604_801 }, 'idleSeconds'],
    [{ checkpointNudgeSeconds: 'often' }, 'checkpointNudgeSeconds'],
    [{ prefix: 'B-1' }, 'prefix'],
    [{ requireReview: 'yes' }, 'requireReview'],
    [{ colour: 'red' }, 'colour'],
  ])('names the file and the field of a bad value: %j', (config, field) => {
    const dir = repoWith(config);
    const error = refusal(loadConfig({ repoRoot: dir, env: {} }));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', file: join(dir, '.baton.json'), field });
    expect(error.message).toContain(field);
  });

  it('names the file of malformed JSON', () => {
    const dir = repoWith('{ nope');
    expect(refusal(loadConfig({ repoRoot: dir, env: {} }))).toMatchObject({ code: 'INVALID_INPUT', file: join(dir, '.baton.json') });
  });

  it.each(['0', '86401', 'soon', '1.5'])('names the setting when BATON_LEASE_SECONDS is %s', (bad) => {
    const error = refusal(loadConfig({ repoRoot: null, env: { BATON_LEASE_SECONDS: bad } }));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', setting: 'BATON_LEASE_SECONDS' });
  });

  it.each(['-1', '604801', 'an hour'])('names the setting when BATON_IDLE_SECONDS is %s', (bad) => {
    const error = refusal(loadConfig({ repoRoot: null, env: { BATON_IDLE_SECONDS: bad } }));
    expect(error).toMatchObject({ code: 'INVALID_INPUT', setting: 'BATON_IDLE_SECONDS' });
    expect(error.message).toContain('BATON_IDLE_SECONDS');
  });
});
