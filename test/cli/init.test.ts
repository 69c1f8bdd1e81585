import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SERVER_ENV } from '../../shared/client-config.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';
import { CLI } from '../helpers/spawnServer.js';

describe('baton init', () => {
  let repo: ScratchRepo;
  const read = (path: string) => JSON.parse(readFileSync(join(repo.main, path), 'utf8'));

  beforeEach(() => {
    repo = makeRepo({ worktrees: ['wt-a'] });
  });
  afterEach(() => repo.remove());

  it('refuses to run where there is no worktree (inside .git), writing nothing there', async () => {
    const gitDir = join(repo.main, '.git');
    const run = await runCli(['init'], { cwd: gitDir });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/INVALID_INPUT: .* not in a worktree; run baton init in a worktree/);
    expect(existsSync(join(gitDir, '.mcp.json'))).toBe(false);
    expect(existsSync(join(gitDir, '.vscode'))).toBe(false);
  });

  it('merges its server into an existing .mcp.json without losing any entry', async () => {
    const mine = {
      mcpServers: {
        github: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'], env: { GITHUB_TOKEN: 'x' } },
        files: { command: 'mcp-files', args: [] },
      },
      someOtherSetting: { keep: true },
    };
    writeFileSync(join(repo.main, '.mcp.json'), JSON.stringify(mine, null, 2));

    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.status).toBe(0);
    const config = read('.mcp.json');
    expect(config.mcpServers.github).toEqual(mine.mcpServers.github);
    expect(config.mcpServers.files).toEqual(mine.mcpServers.files);
    expect(config.someOtherSetting).toEqual({ keep: true });
    expect(config.mcpServers.baton).toEqual({ command: 'node', args: [CLI, 'serve'], env: SERVER_ENV });
  });

  it("updates how an existing baton entry starts the server and keeps the entry's other settings", async () => {
    const env = { BATON_AGENT: 'claude', BATON_LEASE_SECONDS: '600' };
    writeFileSync(join(repo.main, '.mcp.json'), JSON.stringify({ mcpServers: { baton: { command: 'node', args: ['/old/cli.js', 'serve'], env, cwd: 'sub' } } }));
    mkdirSync(join(repo.main, '.vscode'));
    writeFileSync(join(repo.main, '.vscode', 'mcp.json'), JSON.stringify({ servers: { baton: { type: 'stdio', command: 'baton', args: ['serve'], env } } }));

    const run = await runCli(['init', '--json'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(read('.mcp.json').mcpServers.baton).toEqual({ command: 'node', args: [CLI, 'serve'], env: { ...env, ...SERVER_ENV }, cwd: 'sub' });
    expect(read('.vscode/mcp.json').servers.baton).toEqual({ type: 'stdio', command: 'node', args: [CLI, 'serve'], env: { ...env, ...SERVER_ENV } });
    expect((await runCli(['init', '--json'], { cwd: repo.main })).json().written).toEqual([]);

    // An explicit --db adds its variable to the user's.
    const db = join(repo.dir, 'elsewhere.db');
    await runCli(['init', '--db', db], { cwd: repo.main });
    expect(read('.mcp.json').mcpServers.baton.env).toEqual({ ...env, ...SERVER_ENV, BATON_DB: db });
  });

  it('writes VS Code configuration with a stdio server, keeping its other servers', async () => {
    mkdirSync(join(repo.main, '.vscode'));
    writeFileSync(join(repo.main, '.vscode', 'mcp.json'), JSON.stringify({ servers: { other: { type: 'http', url: 'http://localhost:1' } }, inputs: [] }));
    await runCli(['init'], { cwd: repo.main });
    const config = read('.vscode/mcp.json');
    expect(config.servers.other).toEqual({ type: 'http', url: 'http://localhost:1' });
    expect(config.inputs).toEqual([]);
    expect(config.servers.baton).toEqual({ type: 'stdio', command: 'node', args: [CLI, 'serve'], env: SERVER_ENV });
  });

  it('is idempotent: a second run leaves both files exactly as they were', async () => {
    const first = await runCli(['init', '--json'], { cwd: repo.main });
    expect(first.json().written).toHaveLength(3);
    const files = [join(repo.main, '.mcp.json'), join(repo.main, '.vscode', 'mcp.json'), join(repo.main, '.claude', 'settings.json')];
    const before = files.map((file) => readFileSync(file, 'utf8'));
    const second = await runCli(['init', '--json'], { cwd: repo.main });
    expect(second.status).toBe(0);
    expect(second.json()).toMatchObject({ written: [], unchanged: files });
    expect(files.map((file) => readFileSync(file, 'utf8'))).toEqual(before);
  });

  it('configures the top level of the repository from a subfolder, and creates the shared database', async () => {
    mkdirSync(join(repo.main, 'src'));
    const run = await runCli(['init', '--json'], { cwd: join(repo.main, 'src') });
    expect(run.json()).toMatchObject({ database: repo.dbPath, server: { command: 'node', args: [CLI, 'serve'], env: SERVER_ENV } });
    expect(existsSync(join(repo.main, '.mcp.json'))).toBe(true);
    expect(existsSync(repo.dbPath)).toBe(true);
  });

  it('prints an AGENTS.md snippet describing the work loop', async () => {
    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.stdout).toContain('AGENTS.md');
    for (const tool of ['next_issue', 'checkpoint', 'done', 'claimToken', 'CLAIM_LOST', 'claim_issue']) expect(run.stdout).toContain(tool);
  });

  it('refuses a configuration file it could not rewrite faithfully, and leaves it as it is', async () => {
    const text = '{\n  // my servers\n  "mcpServers": {}\n}\n';
    writeFileSync(join(repo.main, '.mcp.json'), text);
    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('.mcp.json');
    expect(readFileSync(join(repo.main, '.mcp.json'), 'utf8')).toBe(text);
  });

  it.each([
    ['a setting out of range', 2, () => ({ env: { BATON_LEASE_SECONDS: '0' } })],
    ['a malformed .baton.json', 2, () => (writeFileSync(join(repo.main, '.baton.json'), '{"leaseSeconds": "60"}'), {})],
    ['a database that cannot be created', 1, () => (writeFileSync(join(repo.dir, 'a-file'), ''), { args: ['--db', join(repo.dir, 'a-file', 'baton.db')] })],
    ['a configuration file it cannot rewrite', 1, () => (writeFileSync(join(repo.main, '.vscode'), 'not a folder'), {})],
  ] as [string, number, () => { env?: Record<string, string>; args?: string[] }][])('writes no file when it fails on %s', async (_, status, arrange) => {
    const { env, args = [] } = arrange();
    const run = await runCli(['init', ...args], { cwd: repo.main, env });
    expect(run.status).toBe(status);
    expect(existsSync(join(repo.main, '.mcp.json'))).toBe(false);
  });

  it.each(['12345678901234567890', '1e400', '0.1000000000000000000000000001'])('refuses a file holding %s, which a rewrite would change, and leaves it as it is', async (n) => {
    const text = `{"mcpServers": {}, "telemetryId": ${n}}\n`;
    writeFileSync(join(repo.main, '.mcp.json'), text);
    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(n);
    expect(readFileSync(join(repo.main, '.mcp.json'), 'utf8')).toBe(text);
    expect(existsSync(join(repo.main, '.vscode', 'mcp.json'))).toBe(false);
  });

  it('rewrites numbers it reads exactly, whatever their spelling', async () => {
    writeFileSync(join(repo.main, '.mcp.json'), '{"a": 1.0, "b": 1e3, "c": -0.50, "d": 9007199254740991, "e": "12345678901234567890", "f": [0.1, -0]}');
    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(read('.mcp.json')).toMatchObject({ a: 1, b: 1000, c: -0.5, d: 9007199254740991, e: '12345678901234567890', f: [0.1, 0] });
  });

  it('passes an explicit --db on to the server it configures', async () => {
    const db = join(repo.dir, 'elsewhere.db');
    await runCli(['init', '--db', db], { cwd: repo.main });
    expect(read('.mcp.json').mcpServers.baton.env).toEqual({ ...SERVER_ENV, BATON_DB: db });
  });

  it("merges its hooks into .claude/settings.json, keeping every other hook and setting, and updates its own in place", async () => {
    mkdirSync(join(repo.main, '.claude'));
    const mine = {
      permissions: { allow: ['Bash(npm test)'] },
      hooks: {
        PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'npx prettier --write', timeout: 30 }] }],
        Stop: [{ hooks: [{ type: 'command', command: 'node /old/place/dist/cli.js hook claude', timeout: 5 }] }],
        Notification: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
      },
    };
    writeFileSync(join(repo.main, '.claude', 'settings.json'), JSON.stringify(mine, null, 2));
    expect((await runCli(['init'], { cwd: repo.main })).status).toBe(0);

    const ours = { type: 'command', command: `node ${CLI} hook claude`, timeout: 10 };
    expect(read('.claude/settings.json')).toEqual({
      permissions: mine.permissions,
      hooks: {
        PostToolUse: [mine.hooks.PostToolUse[0], { matcher: '', hooks: [ours] }],
        Stop: [{ hooks: [ours] }],
        Notification: mine.hooks.Notification,
        UserPromptSubmit: [{ hooks: [ours] }],
        SessionEnd: [{ hooks: [ours] }],
      },
    });
  });

  it('keeps the variables a user set in front of its hook command, and changes nothing when run again', async () => {
    mkdirSync(join(repo.main, '.claude'));
    const mine = { hooks: { PostToolUse: [{ matcher: '', hooks: [{ type: 'command', command: 'NODE_EXTRA_CA_CERTS= baton hook claude', timeout: 10 }] }] } };
    writeFileSync(join(repo.main, '.claude', 'settings.json'), JSON.stringify(mine, null, 2));
    expect((await runCli(['init'], { cwd: repo.main })).status).toBe(0);
    const settings = read('.claude/settings.json');
    expect(settings.hooks.PostToolUse).toEqual([{ matcher: '', hooks: [{ type: 'command', command: `NODE_EXTRA_CA_CERTS= node ${CLI} hook claude`, timeout: 10 }] }]);
    expect(settings.hooks.Stop).toEqual([{ hooks: [{ type: 'command', command: `node ${CLI} hook claude`, timeout: 10 }] }]);
    expect((await runCli(['init', '--json'], { cwd: repo.main })).json().written).toEqual([]);
  });

  it('leaves the hooks out with --no-hooks', async () => {
    const run = await runCli(['init', '--no-hooks', '--json'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.json().written).toHaveLength(2);
    expect(existsSync(join(repo.main, '.claude', 'settings.json'))).toBe(false);
  });

  it("writes Cursor's hooks only where the project has a .cursor folder, and leaves them out with --no-hooks", async () => {
    expect((await runCli(['init'], { cwd: repo.main })).status).toBe(0);
    expect(existsSync(join(repo.main, '.cursor'))).toBe(false);

    mkdirSync(join(repo.main, '.cursor'));
    expect((await runCli(['init', '--no-hooks'], { cwd: repo.main })).status).toBe(0);
    expect(existsSync(join(repo.main, '.cursor', 'hooks.json'))).toBe(false);

    const run = await runCli(['init', '--json'], { cwd: repo.main });
    expect(run.json().written).toEqual([join(repo.main, '.cursor', 'hooks.json')]);
    const ours = [{ command: `node ${CLI} hook cursor` }];
    expect(read('.cursor/hooks.json')).toEqual({
      version: 1,
      hooks: { beforeSubmitPrompt: ours, afterMCPExecution: ours, afterShellExecution: ours, afterFileEdit: ours, stop: ours },
    });
    expect((await runCli(['init', '--json'], { cwd: repo.main })).json().written).toEqual([]);
  });

  it('refuses a .cursor/hooks.json it cannot rewrite faithfully, and writes no file', async () => {
    mkdirSync(join(repo.main, '.cursor'));
    const text = '{"version": 1, "hooks": {"stop": {"command": "./notify.sh"}}}';
    writeFileSync(join(repo.main, '.cursor', 'hooks.json'), text);
    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('hooks.json');
    expect(readFileSync(join(repo.main, '.cursor', 'hooks.json'), 'utf8')).toBe(text);
    expect(existsSync(join(repo.main, '.mcp.json'))).toBe(false);
  });

  it.each([
    ['hooks that are not an object', '{"hooks": []}'],
    ["an event's hooks that are not a list", '{"hooks": {"Stop": {"command": "x"}}}'],
    ['comments', '{\n  // mine\n  "hooks": {}\n}\n'],
  ])('refuses .claude/settings.json with %s, and writes no file', async (_, text) => {
    mkdirSync(join(repo.main, '.claude'));
    writeFileSync(join(repo.main, '.claude', 'settings.json'), text);
    const run = await runCli(['init'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('settings.json');
    expect(readFileSync(join(repo.main, '.claude', 'settings.json'), 'utf8')).toBe(text);
    expect(existsSync(join(repo.main, '.mcp.json'))).toBe(false);
  });
});
