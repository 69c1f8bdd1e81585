import type { OutputStream } from './render.js';
import { forTerminal } from './render.js';

/**
 * A block of text redrawn in place on a terminal (cursor up, clear to the end), as a
 * live table with countdowns needs. Lines printed with `log` scroll above the block.
 * Piped, it redraws nothing: it prints the block only when its `signature` (by default
 * its text) changes, so a log gets each new state once instead of a frame every tick.
 */
export class LiveView {
  private lines = 0;
  private last = '';
  private lastSignature = '';

  /** `colours`: the block is painted with the CLI's colours, which stay (see `forTerminal`). */
  constructor(
    private readonly stream: OutputStream,
    private readonly colours = true,
  ) {}

  draw(block: string, signature = block): void {
    const safe = forTerminal(block, this.colours);
    const text = safe.endsWith('\n') ? safe : `${safe}\n`;
    if (!this.stream.isTTY) {
      if (signature !== this.lastSignature) this.stream.write(text);
      this.lastSignature = signature;
      return;
    }
    this.stream.write(this.clear() + text);
    this.last = text;
    this.lines = text.split('\n').length - 1;
  }

  /** A line that stays: printed above the live block, which is drawn again below it. */
  log(text: string): void {
    const line = forTerminal(text, this.colours);
    if (!this.stream.isTTY) {
      this.stream.write(`${line}\n`);
      return;
    }
    const block = this.last;
    this.stream.write(`${this.clear()}${line}\n${block}`);
    this.lines = block ? block.split('\n').length - 1 : 0;
  }

  /** Leaves the last frame on screen and stops managing it. */
  done(): void {
    this.lines = 0;
  }

  private clear(): string {
    return this.lines > 0 ? `\x1b[${this.lines}A\x1b[0J` : '';
  }
}
