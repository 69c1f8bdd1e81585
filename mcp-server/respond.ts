import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { BatonError, ErrorCode } from '../shared/errors.js';
import { batonError } from '../shared/errors.js';
import { noticesText } from '../shared/notice-text.js';
import type { Result } from '../shared/result.js';
import type { LeaseNotice } from '../shared/types.js';

/**
 * What an agent should do next after a refusal, shown in the text of the answer. The core's
 * own messages for CLAIM_LOST and CLAIM_MISMATCH already say it.
 */
const NEXT_STEP: Partial<Record<ErrorCode, string>> = {
  INVALID_INPUT: 'Fix the fields named and call again.',
  NOT_FOUND: 'Check the key (list_issues).',
  ALREADY_CLAIMED: 'Someone else holds it: take other work with next_issue.',
  BLOCKED: 'Unfinished issues block it: take other work with next_issue.',
  NOT_READY: 'Its status does not allow this.',
  FORBIDDEN: 'The token belongs to another agent: do not use it.',
  CYCLE: 'Nothing changed.',
  STORE_UNAVAILABLE: 'Nothing changed; try again shortly.',
};

/** A successful answer: the structured value, and a short text of it for people and text-only clients. */
export function answer(value: object, text: string): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: value as Record<string, unknown> };
}

/** A refusal: `isError` with `{ error: { code, message, ...details } }`. */
export function refusal(error: BatonError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: [`${error.code}:`, error.message, NEXT_STEP[error.code]].filter(Boolean).join(' ') }],
    structuredContent: { error },
  };
}

/** The one place a core result becomes a tool answer. */
export function respond<T extends object>(result: Result<T>, render: (value: T) => string): CallToolResult {
  return result.ok ? answer(result.value, render(result.value)) : refusal(result.error);
}

/**
 * The answer with the leases the session lost (docs/protocol.md, "Liveness"): `notices` in
 * its structured content, and its text opening with them, whatever the tool.
 */
export function withNotices(answer: CallToolResult, notices: readonly LeaseNotice[]): CallToolResult {
  if (notices.length === 0) return answer;
  const [first, ...rest] = answer.content;
  const text = first?.type === 'text' ? `${noticesText(notices)}\n\n${first.text}` : noticesText(notices);
  return {
    ...answer,
    content: [{ type: 'text', text }, ...(first?.type === 'text' ? rest : answer.content)],
    structuredContent: { ...answer.structuredContent, notices },
  };
}

/** A failed zod parse as `INVALID_INPUT`, with which fields failed and why. */
export function invalidInput(error: z.ZodError): CallToolResult {
  const issues = error.issues.map((issue) => ({
    path: issue.path.map(String).join('.') || '(arguments)',
    message: issue.message,
  }));
  const summary = issues.map((i) => `${i.path}: ${i.message}`).join('; ');
  return refusal(batonError('INVALID_INPUT', `Invalid input: ${summary}.`, { issues }));
}

/** Parses tool arguments with the tool's own schema: the parsed value, or the INVALID_INPUT answer. */
export function parseInput<S extends z.ZodType>(
  schema: S,
  args: unknown,
): { ok: true; value: z.output<S> } | { ok: false; answer: CallToolResult } {
  const parsed = schema.safeParse(args ?? {});
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, answer: invalidInput(parsed.error) };
}
