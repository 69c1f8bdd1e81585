import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult, JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { ListedTool } from './tool.js';

/**
 * Answers the calls of Baton's own tools as they come in, before the SDK sees them, and
 * passes every other message on: the handshake, tools/list, resources, prompts, pings, a
 * call of an unknown tool or one asking to run as a task.
 *
 * Why: on the SDK's way a call is checked against the tools/call request schema twice
 * and its answer against the result schema and the tool's output schema, inside a
 * promise chain with an abort controller per request. A Baton tool needs none of it: it
 * checks its own input and builds its answer to its output schema, which the tests check
 * with the SDK's client against the schema as tools/list publishes it. Skipping that
 * work saves a busy server CPU on every call (docs/architecture.md lists this bypass;
 * bench/JOURNAL.md has the measurement).
 *
 * What the SDK does with a call is kept: a tool that throws answers `isError` with the
 * message, and a call cancelled by the client (`notifications/cancelled`) gets no answer.
 */
export class ToolCallTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  private readonly calls: ReadonlyMap<string, ListedTool['call']>;
  /** The calls under way, with whether the client has cancelled each. */
  private readonly running = new Map<RequestId, { cancelled: boolean }>();

  constructor(
    private readonly inner: Transport,
    tools: readonly ListedTool[],
  ) {
    this.calls = new Map(tools.map((tool) => [tool.name, tool.call]));
    // Handlers already set on `inner` (the server's log of unreadable input) keep running, as the SDK keeps them.
    const { onclose, onerror } = inner;
    inner.onclose = () => {
      onclose?.();
      this.onclose?.();
    };
    inner.onerror = (error) => {
      onerror?.(error);
      this.onerror?.(error);
    };
    inner.onmessage = (message, extra) => {
      if (!this.answer(message)) this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Runs the message if it is a call of a Baton tool; false to leave it to the SDK. */
  private answer(message: JSONRPCMessage): boolean {
    if (!('method' in message)) return false;
    if (message.method === 'notifications/cancelled') {
      const call = this.running.get(message.params?.requestId as RequestId);
      if (call) call.cancelled = true;
      return false;
    }
    if (message.method !== 'tools/call' || !('id' in message)) return false;
    const params = message.params as { name?: unknown; arguments?: unknown; task?: unknown } | undefined;
    const run = typeof params?.name === 'string' ? this.calls.get(params.name) : undefined;
    if (!run || params?.task !== undefined) return false;

    const { id } = message;
    const call = { cancelled: false };
    this.running.set(id, call);
    run(params?.arguments)
      .catch((error: unknown): CallToolResult => ({
        content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }],
        isError: true,
      }))
      .then((result) => {
        this.running.delete(id);
        if (!call.cancelled) return this.inner.send({ jsonrpc: '2.0', id, result });
      })
      .catch((error: unknown) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
    return true;
  }
}
