import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';

/** What a Baton tool answered: the structured value, whether it is a refusal, and the text. */
export interface ToolAnswer {
  isError: boolean;
  structured: Record<string, any>;
  text: string;
  /** The whole answer as sent, for secrecy checks. */
  raw: string;
}

/** Calls a tool through the SDK client (which checks structuredContent against the outputSchema). */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    structured: (result.structuredContent ?? {}) as Record<string, any>,
    text: content.map((c) => c.text ?? '').join('\n'),
    raw: JSON.stringify(result),
  };
}

/** Calls a tool that must succeed and returns its structured value. */
export async function ok(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const answer = await call(client, name, args);
  if (answer.isError) throw new Error(`${name} was refused: ${answer.text}`);
  return answer.structured;
}

/** Calls a tool that must be refused with `code` and returns the error object. */
export async function refused(client: Client, name: string, args: Record<string, unknown>, code: string): Promise<Record<string, any>> {
  const answer = await call(client, name, args);
  expect(answer.isError, `${name} should be refused with ${code}, answered: ${answer.text}`).toBe(true);
  expect(answer.structured.error?.code, answer.text).toBe(code);
  return answer.structured.error;
}
