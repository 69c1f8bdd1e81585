import { describe, expect, it } from 'vitest';
import { claudeFormat } from '../../shared/hooks/claude-format.js';
import { cursorFormat } from '../../shared/hooks/cursor-format.js';

const cursor = (name: string, more: Record<string, unknown> = {}) =>
  JSON.stringify({ conversation_id: 'c', generation_id: 'g', model: 'm', hook_event_name: name, cursor_version: '1.7.0', workspace_roots: ['/repo'], user_email: null, ...more });

describe("the clients' hook formats on one rule set", () => {
  it("maps Cursor's events onto the same meanings as Claude Code's", () => {
    const meaning = (format: typeof claudeFormat, text: string) => format.parse(text, '/repo')?.input.event;
    expect(meaning(cursorFormat, cursor('afterMCPExecution'))).toBe(meaning(claudeFormat, '{"hook_event_name":"PostToolUse","cwd":"/repo"}'));
    for (const name of ['afterShellExecution', 'afterFileEdit']) expect(meaning(cursorFormat, cursor(name))).toBe('tool');
    expect(meaning(cursorFormat, cursor('beforeSubmitPrompt'))).toBe(meaning(claudeFormat, '{"hook_event_name":"UserPromptSubmit"}'));
    expect(meaning(cursorFormat, cursor('stop'))).toBe(meaning(claudeFormat, '{"hook_event_name":"Stop"}'));
    expect(meaning(cursorFormat, cursor('afterAgentResponse'))).toBe('other');
  });

  it('tells a loss where the client passes the answer on: Claude Code on tool calls and prompts, Cursor at stops only', () => {
    const tells = (format: typeof claudeFormat, text: string) => format.parse(text, '/repo')!.input.tells;
    expect(['PostToolUse', 'UserPromptSubmit', 'Stop'].map((name) => tells(claudeFormat, JSON.stringify({ hook_event_name: name })))).toEqual([true, true, false]);
    expect(['afterMCPExecution', 'beforeSubmitPrompt', 'stop'].map((name) => tells(cursorFormat, cursor(name)))).toEqual([false, false, true]);
  });

  it("reads Cursor's loop_count as a stop that already follows an automatic follow-up", () => {
    const continuing = (loopCount: unknown) => cursorFormat.parse(cursor('stop', { status: 'completed', loop_count: loopCount }), '/repo')!.input.continuing;
    expect([0, 1, 5, undefined, '2'].map(continuing)).toEqual([false, true, true, false, false]);
  });

  it("takes the workspace root that holds the hook's directory, else the first, as the agent's directory", () => {
    const cwd = (roots: unknown, here: string) => cursorFormat.parse(cursor('stop', { workspace_roots: roots }), here)!.input.cwd;
    expect(cwd(['/a', '/b'], '/b')).toBe('/b');
    expect(cwd(['/a', '/b'], '/b/src')).toBe('/b');
    expect(cwd(['/a', '/b'], '/home/me')).toBe('/a');
    expect(cwd(['/a', '/ab'], '/ab')).toBe('/ab');
    expect(cwd(['relative', 7], '/x')).toBeNull();
    expect(cwd(undefined, '/x')).toBeNull();
  });

  it('answers Cursor with JSON whatever happened, and Claude Code with nothing when there is nothing to say', () => {
    const lost = { kind: 'lost', text: 'Baton: you no longer hold BAT-7' } as const;
    expect(cursorFormat.output('stop', lost)).toBe(JSON.stringify({ followup_message: lost.text }));
    expect(cursorFormat.output('stop', null)).toBe('{}');
    expect(cursorFormat.output('beforeSubmitPrompt', lost)).toBe('{"continue":true}');
    expect(cursorFormat.output('afterMCPExecution', lost)).toBe('{}');
    expect(cursorFormat.output(null, null)).toBe('{}');
    expect(claudeFormat.output(null, null)).toBeNull();
    expect(claudeFormat.output('Stop', { kind: 'nudge', text: 'checkpoint' })).toBe('{"decision":"block","reason":"checkpoint"}');
    expect(claudeFormat.output('SessionEnd', lost)).toBeNull();
    expect(cursorFormat.parse('[1]', '/x')).toBeNull();
  });
});
