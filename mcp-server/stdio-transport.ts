import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import { serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { batonError } from '../shared/errors.js';
import { isJsonObject } from '../shared/validate.js';
import { MessageHead } from './message-head.js';
import { readMessage } from './read-message.js';
import { invalidInput, refusal } from './respond.js';

/** The longest message read, as with the SDK's own stdio transport; no valid call comes near it. */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

/** A message skipped unread for its size. */
export class MessageTooLargeError extends Error {
  override name = 'MessageTooLargeError';
}

const toolArguments = z.record(z.string(), z.unknown()).optional();

/**
 * MCP over stdin and stdout, one JSON-RPC message per line, as the SDK's
 * `StdioServerTransport` reads it, except that no single message ends the session:
 *
 * - The SDK's transport closes, and the server with it, when a line outgrows its buffer.
 *   Here a line past {@link MAX_MESSAGE_BYTES} is skipped to its end and refused, when its
 *   id can be told, like any other bad input: a tool call as INVALID_INPUT, anything else
 *   as an invalid request.
 * - The SDK answers a `tools/call` whose `arguments` is not an object with an internal
 *   error before any tool sees it; here it is INVALID_INPUT, as for any bad argument.
 */
export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private pieces: Buffer[] = [];
  private size = 0;
  /** While the rest of a line too large to read is skipped: what is needed to refuse it. */
  private skipping: MessageHead | undefined;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.stdin.on('data', this.onData);
    this.stdin.on('error', this.onStdinError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(serializeMessage(message))) resolve();
      else this.stdout.once('drain', resolve);
    });
  }

  async close(): Promise<void> {
    this.stdin.off('data', this.onData);
    this.stdin.off('error', this.onStdinError);
    // Paused, stdin no longer keeps the process alive once nothing else reads it.
    if (this.stdin.listenerCount('data') === 0) this.stdin.pause();
    this.pieces = [];
    this.size = 0;
    this.skipping = undefined;
    this.onclose?.();
  }

  private readonly onStdinError = (error: Error): void => this.onerror?.(error);

  private readonly onData = (chunk: Buffer): void => {
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, newline < 0 ? chunk.length : newline));
      if (newline < 0) return;
      this.endLine();
      start = newline + 1;
    }
  };

  private take(piece: Buffer): void {
    if (this.skipping) {
      this.skipping.feed(piece);
    } else if (this.size + piece.length <= MAX_MESSAGE_BYTES) {
      this.pieces.push(piece);
      this.size += piece.length;
    } else {
      this.skipping = new MessageHead();
      for (const held of this.pieces) this.skipping.feed(held);
      this.skipping.feed(piece);
      this.pieces = [];
      this.size = 0;
    }
  }

  private endLine(): void {
    const skipped = this.skipping;
    if (skipped) {
      this.skipping = undefined;
      this.refuseTooLarge(skipped);
      return;
    }
    const line = Buffer.concat(this.pieces, this.size).toString('utf8').replace(/\r$/, '');
    this.pieces = [];
    this.size = 0;
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = readMessage(line);
    } catch (error) {
      this.onerror?.(error as Error);
      return;
    }
    if ('method' in message && message.method === 'tools/call' && 'id' in message) {
      // An object passes as it is; zod is asked only to say what is wrong with anything else.
      const args = message.params?.arguments;
      const checked = args === undefined || isJsonObject(args) ? undefined : toolArguments.safeParse(args);
      if (checked && !checked.success) {
        void this.send({ jsonrpc: '2.0', id: message.id, result: invalidInput(checked.error) });
        return;
      }
    }
    this.onmessage?.(message);
  }

  private refuseTooLarge(head: MessageHead): void {
    this.onerror?.(new MessageTooLargeError(`a message over ${MAX_MESSAGE_BYTES} bytes was skipped`));
    // A notification has no answer; nor has a request whose id cannot be read from the line.
    if (head.id === undefined) return;
    const text = `The message is larger than ${MAX_MESSAGE_BYTES / (1024 * 1024)} MiB and was not read.`;
    void this.send(
      head.method === 'tools/call'
        ? { jsonrpc: '2.0', id: head.id, result: refusal(batonError('INVALID_INPUT', text)) }
        : { jsonrpc: '2.0', id: head.id, error: { code: ErrorCode.InvalidRequest, message: text } },
    );
  }
}
