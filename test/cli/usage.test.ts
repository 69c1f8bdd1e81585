import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo, type ScratchRepo } from '../helpers/git.js';

const COMMANDS = ['serve', 'init', 'add', 'import', 'ls', 'show', 'claims', 'release', 'watchdog', 'doctor'];

describe('baton command line', () => {
  let repo: ScratchRepo;
  beforeAll(() => {
    repo = makeRepo();
  });
  afterAll(() => repo.remove());

  it.each(COMMANDS)('answers --help on %s with exit 0', async (command) => {
    const run = await runCli([command, '--help'], { cwd: repo.main });
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Usage: baton ${command}`);
    if (command !== 'serve') {
      expect(run.stdout).toContain('--json');
      expect(run.stdout).toContain('--db <path>');
    }
  });

  it('lists every command in its own help', async () => {
    const run = await runCli(['--help'], { cwd: repo.main });
    expect(run.status).toBe(0);
    for (const command of COMMANDS) expect(run.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
  });

  it.each([
    ['no command', []],
    ['an unknown command', ['frobnicate']],
    ['an unknown option', ['ls', '--frobnicate']],
    ['a missing argument', ['show']],
    ['a malformed key', ['show', 'not-a-key']],
    ['a priority out of range', ['add', 'A title', '--priority', '9']],
    ['a bad status filter', ['ls', '--status', 'finished']],
    ['an empty priority', ['add', 'A title', '-p', '']],
    ['a blank priority', ['add', 'A title', '-p', ' ']],
    ['a priority in hex', ['add', 'A title', '-p', '0x3']],
    ['an empty limit', ['ls', '--limit', '']],
    ['an empty interval', ['claims', '--interval', ' ']],
  ])('exits 2 on %s', async (_, args) => {
    const run = await runCli(args, { cwd: repo.main });
    expect(run.status).toBe(2);
    expect(run.stdout).not.toContain('"error"');
  });

  it('creates no issue when the priority is empty, rather than one at priority 0', async () => {
    const run = await runCli(['add', 'Unset priority', '-p', ''], { cwd: repo.main });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('expected a priority');
    const { issues } = (await runCli(['ls', '--json'], { cwd: repo.main })).json();
    expect(issues.filter((i: { title: string }) => i.title === 'Unset priority')).toEqual([]);
  });

  it('exits 2 with one line naming the setting when a setting is out of range', async () => {
    const run = await runCli(['ls'], { cwd: repo.main, env: { BATON_LEASE_SECONDS: '0' } });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('BATON_LEASE_SECONDS');
  });

  it('exits 2 when serve is given a setting out of range', async () => {
    const run = await runCli(['serve'], { cwd: repo.main, env: { BATON_LEASE_SECONDS: '86401' } });
    expect(run.status).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('BATON_LEASE_SECONDS');
  });

  it('exits 1 with the error code on a refused operation', async () => {
    const run = await runCli(['show', 'BAT-404'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('NOT_FOUND');
  });

  it('prints a refusal as { error } on stdout with --json', async () => {
    const run = await runCli(['release', 'BAT-404', '--json'], { cwd: repo.main });
    expect(run.status).toBe(1);
    expect(run.json()).toEqual({ error: expect.objectContaining({ code: 'NOT_FOUND', key: 'BAT-404' }) });
  });
});
