import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ENV } from '../../shared/client-config.js';
import { callTool, runCli, unprivileged } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI, spawnServer, type SpawnedServer } from '../helpers/spawnServer.js';

describe('baton doctor', () => {
  let repo: ScratchRepo;
  let alice: SpawnedServer;

  beforeAll(async () => {
    repo = makeRepo({ worktrees: ['wt-alice'] });
    await runCli(['init'], { cwd: repo.main });
    await runCli(['add', 'Something to hold'], { cwd: repo.main });
    alice = await spawnServer({ cwd: repo.worktrees[0], env: { BATON_AGENT: 'alice' } });
    await callTool(alice.client, 'next_issue');
  });
  afterAll(async () => {
    await alice?.close();
    repo.remove();
  });

  it('reports the database, backend, worktrees, sessions and leases, and a working configuration', async () => {
    const run = await runCli(['doctor', '--json'], { cwd: repo.main });
    expect(run.status).toBe(0);
    const report = run.json();
    expect(report).toMatchObject({ ok: true, backend: 'file', database: repo.dbPath, schemaVersion: expect.any(Number) });
    expect(report.worktrees.map((w: { path: string }) => w.path)).toEqual([repo.main, repo.worktrees[0]]);
    expect(report.sessions).toContainEqual(expect.objectContaining({ agent: 'alice', pid: alice.pid, alive: true }));
    expect(report.claims).toEqual([expect.objectContaining({ key: 'BAT-1', agent: 'alice' })]);
    const status = Object.fromEntries(report.checks.map((c: { name: string; status: string }) => [c.name, c.status]));
    expect(status).toMatchObject({ database: 'ok', connection: 'ok', schema: 'ok', worktrees: 'ok', sessions: 'ok', leases: 'ok', 'lock files': 'ok', '.mcp.json': 'ok', '.vscode/mcp.json': 'ok' });
    expect(report.checks.find((c: { name: string }) => c.name === '.mcp.json').detail).toMatch(/answering \d+ tools/);
    // alice's server is the only one running, so it writes for any that come.
    expect(report.checks.find((c: { name: string }) => c.name === 'writer')).toMatchObject({ status: 'ok', detail: `a server writes for the others (${repo.dbPath}.sock)` });
  });

  it('prints each check on a line for people', async () => {
    const run = await runCli(['doctor', '--no-probe'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^ok\s+database\s+.*baton\.db \(file store/m);
    expect(run.stdout).toMatch(/^ok\s+worktrees\s+2 share this database/m);
    expect(run.stdout).toMatch(/^ok\s+leases\s+1 live: BAT-1 alice/m);
  });

  it('names a stale lock left by a dead process, with its fix', async () => {
    const lockDir = `${repo.dbPath}.lock`;
    mkdirSync(lockDir, { recursive: true });
    // The owner file of a holder that died: a process id that cannot be running.
    writeFileSync(join(lockDir, 'owner'), JSON.stringify({ pid: 2 ** 22 + 17, host: hostname(), nonce: 'dead', at: Date.now() }));
    try {
      const run = await runCli(['doctor', '--json', '--no-probe'], { cwd: repo.main });
      const lock = run.json().checks.find((c: { name: string }) => c.name === 'lock files');
      expect(lock).toMatchObject({ status: 'warn', detail: expect.stringContaining('which is gone'), fix: expect.stringContaining('owner') });
    } finally {
      rmSync(join(lockDir, 'owner'), { force: true });
    }
  });

  it('says that the next server replaces the socket of a writer that was killed', async () => {
    const left = makeRepo();
    try {
      await runCli(['init'], { cwd: left.main });
      // A process killed while it listens leaves its socket file, which nobody answers.
      const listenAndDie = "require('node:net').createServer().listen(process.argv[1], () => process.kill(process.pid, 'SIGKILL'))";
      spawnSync(process.execPath, ['-e', listenAndDie, `${left.dbPath}.sock`]);
      const run = await runCli(['doctor', '--json', '--no-probe'], { cwd: left.main });
      expect(run.json().checks.find((c: { name: string }) => c.name === 'writer')).toMatchObject({ status: 'ok', detail: expect.stringContaining('replaces the socket') });
    } finally {
      left.remove();
    }
  });

  it('reads a VS Code configuration written by hand, with comments and trailing commas', async () => {
    const hand = makeRepo();
    try {
      mkdirSync(join(hand.main, '.vscode'));
      const entry = JSON.stringify({ type: 'stdio', command: 'node', args: [CLI, 'serve'], env: SERVER_ENV });
      writeFileSync(join(hand.main, '.vscode', 'mcp.json'), `{\n  // added by hand\n  "servers": { "my-baton": ${entry}, },\n}\n`);
      const run = await runCli(['doctor', '--json'], { cwd: hand.main });
      const check = run.json().checks.find((c: { name: string }) => c.name === '.vscode/mcp.json');
      expect(check).toMatchObject({ status: 'ok', detail: expect.stringContaining('"my-baton" starts a server') });
      // The probe's server has exited: nobody writes for the others until one starts.
      expect(run.json().checks.find((c: { name: string }) => c.name === 'writer')).toMatchObject({ status: 'ok', detail: expect.stringContaining('none running') });
    } finally {
      hand.remove();
    }
  });

  it('warns about a working entry that starts the server without its memory setting, and says how to add it', async () => {
    const old = makeRepo();
    try {
      const entry = { command: 'node', args: [CLI, 'serve'], env: { BATON_AGENT: 'claude' } };
      writeFileSync(join(old.main, '.mcp.json'), JSON.stringify({ mcpServers: { baton: entry } }));
      mkdirSync(join(old.main, '.vscode'));
      writeFileSync(join(old.main, '.vscode', 'mcp.json'), JSON.stringify({ servers: { 'my-baton': { type: 'stdio', ...entry, env: { MALLOC_ARENA_MAX: '4' } } } }));
      const run = await runCli(['doctor', '--json'], { cwd: old.main });
      expect(run.status).toBe(0);
      const checks = run.json().checks as { name: string }[];
      expect(checks.find((c) => c.name === '.mcp.json')).toMatchObject({
        status: 'warn',
        detail: expect.stringMatching(/answering \d+ tools .*without MALLOC_ARENA_MAX=1/),
        fix: expect.stringContaining('baton init'),
      });
      expect(checks.find((c) => c.name === '.vscode/mcp.json')).toMatchObject({ status: 'warn', fix: 'add "MALLOC_ARENA_MAX": "1", "NODE_OPTIONS": "--max-semi-space-size=1" to the "env" of "my-baton"' });

      // baton init updates its own entry and keeps the user's variable.
      await runCli(['init'], { cwd: old.main });
      const fixed = await runCli(['doctor', '--json'], { cwd: old.main });
      expect((fixed.json().checks as { name: string }[]).find((c) => c.name === '.mcp.json')).toMatchObject({ status: 'ok' });
      expect(JSON.parse(readFileSync(join(old.main, '.mcp.json'), 'utf8')).mcpServers.baton.env).toEqual({ BATON_AGENT: 'claude', ...SERVER_ENV });
    } finally {
      old.remove();
    }
  });

  it('fails, with exit 1 and a fix, when the database cannot be created where it would go', async () => {
    const blocked = makeRepo();
    try {
      writeFileSync(join(blocked.dir, 'a-file'), '');
      const run = await runCli(['doctor', '--json', '--no-probe', '--db', join(blocked.dir, 'a-file', 'baton', 'baton.db')], { cwd: blocked.main });
      expect(run.status).toBe(1);
      expect(run.json().checks.find((c: { name: string }) => c.name === 'permissions')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining(`${join(blocked.dir, 'a-file')} is not a folder`),
        fix: expect.stringContaining('BATON_DB'),
      });
    } finally {
      blocked.remove();
    }
  });

  it.each([
    ['the database files are read-only', (r: ScratchRepo) => {
      asUser(['add', 'one'], r.main);
      chmodSync(r.dbPath, 0o444);
      chmodSync(`${r.dbPath}-log`, 0o444);
      return `${r.dbPath}-log is not writable`;
    }],
    ['the folder the database would be created in is read-only', (r: ScratchRepo) => {
      chmodSync(join(r.main, '.git'), 0o555);
      return `${join(r.main, '.git')} is not writable`;
    }],
  ])('fails, with exit 1 and a fix, when %s for this user', (_, arrange) => {
    const locked = makeRepo();
    try {
      // File modes bind root only on a read-only file system: as root, check as nobody.
      if (unprivileged) {
        chmodSync(locked.dir, 0o755);
        execFileSync('chown', ['-R', `${unprivileged.uid}:${unprivileged.gid}`, locked.main]);
      }
      const problem = arrange(locked);
      const run = asUser(['doctor', '--json', '--no-probe'], locked.main);
      expect(run.status).toBe(1);
      expect(JSON.parse(run.stdout).checks.find((c: { name: string }) => c.name === 'permissions')).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining(problem),
        fix: expect.stringContaining('write access'),
      });
    } finally {
      chmodSync(join(locked.main, '.git'), 0o755);
      locked.remove();
    }
  });

  it('fails, with exit 1 and a fix, when a configuration starts no working server', async () => {
    const broken = makeRepo();
    try {
      writeFileSync(join(broken.main, '.mcp.json'), JSON.stringify({ mcpServers: { baton: { command: 'node', args: [join(broken.dir, 'missing.js'), 'serve'] } } }));
      const run = await runCli(['doctor', '--json'], { cwd: broken.main });
      expect(run.status).toBe(1);
      const report = run.json();
      expect(report.ok).toBe(false);
      expect(report.checks.find((c: { name: string }) => c.name === '.mcp.json')).toMatchObject({ status: 'fail', fix: expect.stringContaining('baton init') });
      expect(report.checks.find((c: { name: string }) => c.name === '.vscode/mcp.json')).toMatchObject({ status: 'warn', fix: expect.stringContaining('baton init') });
      expect(report.checks.find((c: { name: string }) => c.name === 'database')).toMatchObject({ status: 'warn' });
    } finally {
      broken.remove();
    }
  });
});


function asUser(args: string[], cwd: string): { status: number | null; stdout: string } {
  const run = spawnSync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...getDefaultEnvironment(), HOME: cwd },
    encoding: 'utf8',
    ...(unprivileged ?? {}),
  });
  return { status: run.status, stdout: run.stdout };
}
