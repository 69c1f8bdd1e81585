const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPENING = new Set([0x7b, 0x5b]);
const CLOSING = new Set([0x7d, 0x5d]);
/** Longer keys and values are none that matter here: an id or a method name is short. */
const MAX_TOKEN_BYTES = 256;

/**
 * The top-level `id` and `method` of a JSON-RPC message read in pieces, keeping nothing
 * else: enough to refuse a message too large to read. The bytes are followed as JSON
 * (strings, escapes, nesting), so an `"id"` inside the params is never taken for the
 * message's own, wherever in the line either stands.
 */
export class MessageHead {
  id: string | number | undefined;
  method: string | undefined;
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Between the colon of a top-level member and its end. */
  private inValue = false;
  private key: unknown;
  /** The bytes of a top-level key, or of the value of `id` or `method`, being read. */
  private token: number[] | undefined;

  feed(bytes: Uint8Array): void {
    for (const byte of bytes) {
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
        this.keep(byte);
      } else if (byte === QUOTE) {
        this.inString = true;
        if (this.depth === 1 && !this.inValue) this.token = [];
        this.keep(byte);
      } else if (OPENING.has(byte)) {
        // A nested object or array as a top-level value: not an id or a method name.
        if (this.depth === 1) this.token = undefined;
        this.depth++;
      } else if (CLOSING.has(byte)) {
        if (this.depth === 1) this.endMember();
        this.depth--;
      } else if (this.depth === 1 && byte === COLON && !this.inValue) {
        this.key = this.parsed();
        this.inValue = true;
        this.token = this.key === 'id' || this.key === 'method' ? [] : undefined;
      } else if (this.depth === 1 && byte === COMMA) {
        this.endMember();
      } else {
        this.keep(byte);
      }
    }
  }

  private keep(byte: number): void {
    if (this.depth !== 1 || !this.token) return;
    if (this.token.length < MAX_TOKEN_BYTES) this.token.push(byte);
    else this.token = undefined;
  }

  private endMember(): void {
    if (this.inValue && this.token) {
      const value = this.parsed();
      if (this.key === 'id' && (typeof value === 'string' || typeof value === 'number')) this.id = value;
      if (this.key === 'method' && typeof value === 'string') this.method = value;
    }
    this.inValue = false;
    this.token = undefined;
  }

  private parsed(): unknown {
    if (!this.token) return undefined;
    try {
      return JSON.parse(Buffer.from(this.token).toString('utf8'));
    } catch {
      return undefined;
    }
  }
}
