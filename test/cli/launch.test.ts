import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

// The bin starts the CLI bundle from a V8 code cache kept beside it (mcp-server/launch.ts).
// Each test runs a copy of the built files, so the caches it makes are its own.
const dist = resolve(process.cwd(), 'dist');
/** Root ignores file modes, so the test of a read-only installation runs the bin as nobody when run as root. */
const unprivileged = process.getuid?.() === 0 ? { uid: Number(execFileSync('id', ['-u', 'nobody'])), gid: Number(execFileSync('id', ['-g', 'nobody'])) } : null;

describe('the baton bin', () => {
  let dir: string;
  const cacheDir = () => join(dir, '.cache');
  const caches = () => readdirSync(cacheDir()).sort();
  const version = (as: { uid: number; gid: number } | null = null) => {
    const run = spawnSync(process.execPath, [join(dir, 'cli.js'), '--version'], { encoding: 'utf8', ...(as ?? {}) });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return run.stdout.trim();
  };
  /** Rewrites the bundle's version string in place: same length, other text. */
  const setVersion = (from: string, to: string) => {
    const bundle = join(dir, 'baton.js');
    const text = readFileSync(bundle, 'utf8');
    expect(text).toContain(`version:"${from}"`);
    writeFileSync(bundle, text.replace(`version:"${from}"`, `version:"${to}"`));
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'baton-launch-'));
    for (const file of ['cli.js', 'baton.js']) copyFileSync(join(dist, file), join(dir, file));
  });
  afterEach(() => {
    chmodSync(dir, 0o700);
    if (statSync(cacheDir(), { throwIfNoEntry: false })) chmodSync(cacheDir(), 0o700);
    rmSync(dir, { recursive: true, force: true });
  });

  it('makes a cache on its first run and starts from it, unchanged, on the next', () => {
    expect(version()).toBe('0.1.0');
    const [cache] = caches();
    expect(cache).toMatch(/^baton-[0-9a-f]{16}-\d+\.bin$/);
    const made = statSync(join(cacheDir(), cache));
    expect(made.size).toBeGreaterThan(100_000);

    expect(version()).toBe('0.1.0');
    expect(caches()).toEqual([cache]);
    // Written only when missing or refused by V8: an accepted cache is left as it was.
    expect(statSync(join(cacheDir(), cache)).mtimeMs).toBe(made.mtimeMs);
  });

  it('never runs a cache of other code, even code of the same length, and drops the old one', () => {
    expect(version()).toBe('0.1.0');
    const [before] = caches();
    setVersion('0.1.0', '9.8.7');
    expect(version()).toBe('9.8.7');
    const [after] = caches();
    expect(after).not.toBe(before);
    expect(caches()).toEqual([after]);
  });

  it('replaces a damaged cache and still runs', () => {
    expect(version()).toBe('0.1.0');
    const [cache] = caches();
    writeFileSync(join(cacheDir(), cache), Buffer.alloc(4096, 7));
    expect(version()).toBe('0.1.0');
    expect(readFileSync(join(cacheDir(), cache)).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(version()).toBe('0.1.0');
  });

  it('runs without a cache where it cannot write one', () => {
    if (unprivileged) execFileSync('chown', ['-R', `${unprivileged.uid}:${unprivileged.gid}`, dir]);
    chmodSync(dir, 0o500);
    expect(version(unprivileged)).toBe('0.1.0');
    expect(statSync(cacheDir(), { throwIfNoEntry: false })).toBeUndefined();

    chmodSync(dir, 0o700);
    mkdirSync(cacheDir());
    writeFileSync(join(cacheDir(), 'baton-0000000000000000-1.bin'), 'left by an earlier build');
    if (unprivileged) execFileSync('chown', ['-R', `${unprivileged.uid}:${unprivileged.gid}`, dir]);
    chmodSync(cacheDir(), 0o500);
    expect(version(unprivileged)).toBe('0.1.0');
    expect(caches()).toEqual(['baton-0000000000000000-1.bin']);
  });
});
