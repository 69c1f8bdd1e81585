import type { Baton } from '../shared/baton.js';
import type { ClaimView } from '../shared/types.js';
import { LiveView } from '../mcp-server/cli/live-view.js';
import type { Colors } from '../mcp-server/cli/render.js';
import { claimsTable } from '../mcp-server/cli/tables.js';

/** How often the table is read and drawn: countdowns tick each second. */
const FRAME_MS = 250;

/**
 * The live table of claims with countdowns, read from the shared database every frame:
 * redrawn in place on a terminal, printed when the holders change in a log. Lines told to
 * `say` scroll above it.
 */
export class LiveClaims {
  private readonly view: LiveView;
  private claims: ClaimView[] = [];
  private timer: NodeJS.Timeout | undefined;
  private reading = false;
  /** The most claims seen live at one moment. */
  maxConcurrent = 0;

  constructor(
    private readonly core: Baton,
    private readonly c: Colors,
    private readonly elapsed: () => string,
    stream: NodeJS.WriteStream,
  ) {
    this.view = new LiveView(stream);
  }

  say(line: string): void {
    this.view.log(`${this.c.dim(this.elapsed())}  ${line}`);
  }

  start(): void {
    this.timer = setInterval(() => void this.frame(), FRAME_MS);
  }

  /** Stops, leaving the last frame on screen. */
  stop(): void {
    clearInterval(this.timer);
    this.draw();
    this.view.done();
  }

  private async frame(): Promise<void> {
    if (this.reading) return;
    this.reading = true;
    try {
      const read = await this.core.listClaims();
      if (read.ok) this.claims = read.value.claims;
      this.maxConcurrent = Math.max(this.maxConcurrent, this.claims.length);
      this.draw();
    } finally {
      this.reading = false;
    }
  }

  private draw(): void {
    const { c, claims } = this;
    const body = claims.length ? claimsTable(c, claims, Date.now(), process.stdout.columns || 120) : c.dim('  (no live claims)\n');
    const holders = claims.map((claim) => `${claim.key}:${claim.agent}`).sort().join(' ');
    this.view.draw(`${c.bold(`live claims at ${this.elapsed().trim()}`)}\n${body}`, holders);
  }
}
