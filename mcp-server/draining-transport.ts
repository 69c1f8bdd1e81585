import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Wraps a transport to know which requests have not been answered yet, so a shutdown can
 * answer every request already read before it closes. Tracking at this level, not in the
 * tool handlers, also covers requests the SDK has read but not yet handed to a handler.
 */
export class DrainingTransport implements Transport {
  private readonly pending = new Set<RequestId>();
  private idle: (() => void)[] = [];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport['onmessage'];
  /** Told `false` when a request arrives with none under way, `true` when the last one is answered. */
  onidle?: (idle: boolean) => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      if ('method' in message && 'id' in message) {
        if (this.pending.size === 0) this.onidle?.(false);
        this.pending.add(message.id);
      }
      this.onmessage?.(message, extra);
    };
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    try {
      await this.inner.send(message, options);
    } finally {
      if (!('method' in message) && 'id' in message && message.id !== undefined) this.settle(message.id);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Resolves once every request read so far is answered, or after `ms`. */
  drain(ms: number): Promise<void> {
    if (this.pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.idle.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private settle(id: RequestId): void {
    if (!this.pending.delete(id) || this.pending.size > 0) return;
    this.onidle?.(true);
    const waiting = this.idle;
    this.idle = [];
    for (const wake of waiting) wake();
  }
}
