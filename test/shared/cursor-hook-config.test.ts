import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ClientConfigError } from '../../shared/client-config.js';
import { CURSOR_HOOK_EVENTS, planCursorHooks } from '../../shared/hook-config.js';
import { testDir } from '../helpers/test-dir.js';

const COMMAND = 'node /opt/baton/dist/cli.js hook cursor';

/** A project folder with `.cursor/hooks.json` holding `text`, when given. */
function project(text?: string): string {
  const root = testDir('baton-cursor-hooks-');
  mkdirSync(join(root, '.cursor'));
  if (text !== undefined) writeFileSync(join(root, '.cursor', 'hooks.json'), text);
  return root;
}

/** The plan applied: what the file holds afterwards. */
function applied(root: string, command = COMMAND): unknown {
  const { path, text } = planCursorHooks(root, command);
  if (text !== null) writeFileSync(path, text);
  return JSON.parse(readFileSync(path, 'utf8'));
}

describe("Cursor's hooks in .cursor/hooks.json", () => {
  it('writes version 1 and one entry per event where there is no file, and never a permission event', () => {
    const written = applied(project()) as { version: number; hooks: Record<string, unknown> };
    expect(written).toEqual({ version: 1, hooks: Object.fromEntries(CURSOR_HOOK_EVENTS.map((event) => [event, [{ command: COMMAND }]])) });
    expect(Object.keys(written.hooks)).not.toContain('beforeShellExecution');
    expect(Object.keys(written.hooks)).not.toContain('beforeMCPExecution');
  });

  it("keeps every other hook, entry and key, and updates Baton's own entry in place with its other keys", () => {
    const mine = {
      version: 1,
      telemetry: { keep: true },
      hooks: {
        afterFileEdit: [{ command: './hooks/format.sh', matcher: '*.ts' }],
        beforeShellExecution: [{ command: './hooks/audit.sh' }],
        stop: [{ command: './hooks/notify.sh' }, { command: 'node /old/place/dist/cli.js hook cursor', loop_limit: 3 }],
      },
    };
    const root = project(JSON.stringify(mine, null, 2));
    expect(applied(root)).toEqual({
      version: 1,
      telemetry: { keep: true },
      hooks: {
        afterFileEdit: [mine.hooks.afterFileEdit[0], { command: COMMAND }],
        beforeShellExecution: mine.hooks.beforeShellExecution,
        stop: [mine.hooks.stop[0], { command: COMMAND, loop_limit: 3 }],
        beforeSubmitPrompt: [{ command: COMMAND }],
        afterMCPExecution: [{ command: COMMAND }],
        afterShellExecution: [{ command: COMMAND }],
      },
    });
  });

  it('changes nothing when run again, and finds its entry whether launched by node or from PATH', () => {
    const root = project();
    const first = applied(root);
    expect(planCursorHooks(root, COMMAND).text).toBeNull();
    expect(applied(root)).toEqual(first);
    // Switching to `baton` from PATH replaces the command of the same entries rather than adding others.
    const onPath = applied(root, 'baton hook cursor') as { hooks: Record<string, unknown[]> };
    for (const event of CURSOR_HOOK_EVENTS) expect(onPath.hooks[event]).toEqual([{ command: 'baton hook cursor' }]);
  });

  it('keeps the variables a user set in front of its command as it brings the command up to date', () => {
    const root = project(JSON.stringify({ version: 1, hooks: { stop: [{ command: 'NODE_EXTRA_CA_CERTS= DEBUG=baton:* node /old/place/dist/cli.js hook cursor' }] } }));
    const written = applied(root) as { hooks: Record<string, unknown[]> };
    expect(written.hooks.stop).toEqual([{ command: `NODE_EXTRA_CA_CERTS= DEBUG=baton:* ${COMMAND}` }]);
    expect(written.hooks.afterMCPExecution).toEqual([{ command: COMMAND }]);
    expect(planCursorHooks(root, COMMAND).text).toBeNull();
  });

  it('adds the version to a file without one', () => {
    expect(applied(project('{"hooks": {}}'))).toMatchObject({ version: 1 });
  });

  it.each([
    ['is not a JSON object', '[]'],
    ['has comments', '{\n  // mine\n  "version": 1\n}\n'],
    ['has hooks that are not an object', '{"version": 1, "hooks": []}'],
    ["has an event's hooks that are not a list", '{"version": 1, "hooks": {"stop": {"command": "x"}}}'],
    ['is of another version', '{"version": 2, "hooks": {}}'],
  ])('refuses a file that %s, naming it', (_, text) => {
    const root = project(text);
    expect(() => planCursorHooks(root, COMMAND)).toThrow(ClientConfigError);
    expect(() => planCursorHooks(root, COMMAND)).toThrow(join(root, '.cursor', 'hooks.json'));
    expect(readFileSync(join(root, '.cursor', 'hooks.json'), 'utf8')).toBe(text);
  });
});
