import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { unprivileged } from '../helpers/cli.js';

// The bin starts the CLI bundle from a V8 code cache kept beside it (mcp-server/launch.ts).
// Each test runs a copy of the built files, so the caches it makes are its own.
const dist = resolve(process.cwd(), 'dist');
const VERSION: string = JSON.parse(readFileSync(resolve(process.cwd(), 'package.json'), 'utf8')).version;
/** Another version string of the same length: every digit moved on by one. */
const OTHER_VERSION = VERSION.replace(/\d/g, (d) => String((Number(d) + 1) % 10));

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
    expect(version()).toBe(VERSION);
    const [cache] = caches();
    expect(cache).toMatch(/^baton-[0-9a-f]{16}-\d+\.bin$/);
    const made = statSync(join(cacheDir(), cache));
    expect(made.size).toBeGreaterThan(100_000);

    expect(version()).toBe(VERSION);
    expect(caches()).toEqual([cache]);
    // Written only when missing or refused by V8: an accepted cache is left as it was.
    expect(statSync(join(cacheDir(), cache)).mtimeMs).toBe(made.mtimeMs);
  });

  it('never runs a cache of other code, even code of the same length, and drops the old one', () => {
    expect(version()).toBe(VERSION);
    const [before] = caches();
    setVersion(VERSION, OTHER_VERSION);
    expect(version()).toBe(OTHER_VERSION);
    const [after] = caches();
    expect(after).not.toBe(before);
    expect(caches()).toEqual([after]);
  });

  it('replaces a damaged cache and still runs', () => {
    expect(version()).toBe(VERSION);
    const [cache] = caches();
    writeFileSync(join(cacheDir(), cache), Buffer.alloc(4096, 7));
    expect(version()).toBe(VERSION);
    expect(readFileSync(join(cacheDir(), cache)).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect(version()).toBe(VERSION);
  });

  it('runs without a cache where it cannot write one', () => {
    if (unprivileged) execFileSync('chown', ['-R', `${unprivileged.uid}:${unprivileged.gid}`, dir]);
    chmodSync(dir, 0o500);
    expect(version(unprivileged)).toBe(VERSION);
    expect(statSync(cacheDir(), { throwIfNoEntry: false })).toBeUndefined();

    chmodSync(dir, 0o700);
    mkdirSync(cacheDir());
    writeFileSync(join(cacheDir(), 'baton-0000000000000000-1.bin'), 'left by an earlier build');
    if (unprivileged) execFileSync('chown', ['-R', `${unprivileged.uid}:${unprivileged.gid}`, dir]);
    chmodSync(cacheDir(), 0o500);
    expect(version(unprivileged)).toBe(VERSION);
    expect(caches()).toEqual(['baton-0000000000000000-1.bin']);
  });

  it('on a Node without zlib.crc32 (before 20.15, or 21), says which Node it needs and exits 2', () => {
    const preload = join(dir, 'old-node.js');
    writeFileSync(preload, "delete require('node:zlib').crc32;\n");
    const run = spawnSync(process.execPath, ['--require', preload, join(dir, 'cli.js'), 'ls'], { encoding: 'utf8' });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`baton: needs Node.js 20.15 or later on the 20 line, or 22.2 or later; this is ${process.version}\n`);
    expect(statSync(cacheDir(), { throwIfNoEntry: false })).toBeUndefined();
  });
});
