import { JSONRPCMessageSchema, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { isJsonObject } from '../shared/validate.js';

/**
 * One line of input as a JSON-RPC message, checked as the SDK's `deserializeMessage`
 * checks it; throws what that throws (a SyntaxError, a ZodError).
 *
 * A plain tool call, which is nearly every line a busy agent sends, is checked here by
 * hand against the same rules: the schema tries the four kinds of message in turn, a
 * few percent of a busy server's CPU. Anything else, a tool call with anything unusual
 * in it too, goes through the schema.
 */
export function readMessage(line: string): JSONRPCMessage {
  const value: unknown = JSON.parse(line);
  return plainToolCall(value) ?? JSONRPCMessageSchema.parse(value);
}

const REQUEST_KEYS: ReadonlySet<string> = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * `value` as a `tools/call` request the SDK's schema would pass unchanged: a request
 * with no other member (the schema is strict there), an id that is a string or a safe
 * integer, params an object whose `_meta`, if any, holds at most a progress token.
 */
function plainToolCall(value: unknown): JSONRPCRequest | undefined {
  if (!isJsonObject(value) || value.jsonrpc !== '2.0' || value.method !== 'tools/call') return undefined;
  if (typeof value.id !== 'string' && !Number.isSafeInteger(value.id)) return undefined;
  for (const key in value) if (!REQUEST_KEYS.has(key)) return undefined;
  const { params } = value;
  if (!isJsonObject(params)) return undefined;
  const meta = params._meta;
  if (meta !== undefined) {
    if (!isJsonObject(meta)) return undefined;
    for (const key in meta) if (key !== 'progressToken') return undefined;
    const token = meta.progressToken;
    if (token !== undefined && typeof token !== 'string' && !Number.isSafeInteger(token)) return undefined;
  }
  return value as JSONRPCRequest;
}
