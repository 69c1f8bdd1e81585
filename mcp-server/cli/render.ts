import pc from 'picocolors';
import type { Status } from '../../shared/types.js';

/** The colour functions the CLI uses; plain identity functions when colour is off. */
export type Colors = ReturnType<typeof pc.createColors>;

/** What a command writes to: a stream and whether it is a terminal (for colour and width). */
export interface OutputStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/**
 * Colour only on a terminal, never when piped, and never with NO_COLOR set (no-color.org).
 * FORCE_COLOR turns it on anywhere; picocolors' own test also turns it on under CI,
 * which would put escape codes into piped output, so the rule lives here.
 */
export function colorsFor(stream: OutputStream, env: NodeJS.ProcessEnv): Colors {
  const enabled = env.NO_COLOR
    ? false
    : Boolean(env.FORCE_COLOR && env.FORCE_COLOR !== '0') || (Boolean(stream.isTTY) && env.TERM !== 'dumb');
  return pc.createColors(enabled);
}

/**
 * Every C0 control but tab and newline, DEL and every C1 control; first, as one match,
 * the colour codes this CLI paints with itself (picocolors' bold, dim, red, green,
 * yellow, magenta, cyan and their resets).
 */
const TERMINAL_UNSAFE = /\x1b\[(?:1|2|22|31|32|33|35|36|39)m|[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Text made harmless for a terminal, where a control character is a command:
 * `ESC ] 0 ; … BEL` retitles the window and `ESC [ 2 J` clears it. Titles, bodies, notes
 * and agent names come from any agent, so each control character is shown as an escape
 * (`\u001b`) instead; tab and newline stay, for text shown on several lines on purpose.
 * With `colours` (the stream is painted), this CLI's own colour codes stay as they are:
 * one found in the data can then only colour text, never move, clear or retitle anything.
 * Every line for people passes through here on its way out (`CommandContext.print` and
 * `log`, `LiveView`); JSON output does not, and stays exact.
 */
export function forTerminal(text: string, colours = false): string {
  return text.replace(TERMINAL_UNSAFE, (match) => {
    if (match.length > 1) return colours ? match : `\\u001b${match.slice(1)}`;
    return `\\u${match.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** Seconds left as a countdown: `12s`, `4:05`, `1:02:03`; `expired` at zero or below. */
export function countdown(secondsLeft: number): string {
  if (secondsLeft <= 0) return 'expired';
  const s = Math.ceil(secondsLeft);
  if (s < 60) return `${s}s`;
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${seconds}` : `${minutes}:${seconds}`;
}

/** Seconds from `now` until an ISO time. */
export function secondsUntil(iso: string, now = Date.now()): number {
  return (Date.parse(iso) - now) / 1000;
}

/** A countdown coloured by urgency: red in the last minute, yellow in the last five (as the editor's tree does). */
export function paintCountdown(c: Colors, secondsLeft: number): string {
  const text = countdown(secondsLeft);
  if (secondsLeft <= 60) return c.red(text);
  if (secondsLeft <= 300) return c.yellow(text);
  return c.green(text);
}

export function paintStatus(c: Colors, status: Status, held = false): string {
  switch (status) {
    case 'doing':
      return held ? c.cyan(status) : c.magenta(status);
    case 'review':
      return c.yellow(status);
    case 'done':
      return c.green(status);
    case 'cancelled':
      return c.dim(status);
    default:
      return status;
  }
}

/** Priority 0 (highest) to 4 as `P0`…`P4`. */
export function paintPriority(c: Colors, priority: number): string {
  const text = `P${priority}`;
  return priority === 0 ? c.red(text) : priority === 1 ? c.yellow(text) : text;
}

/** One cell: the plain text (for width) and how it is shown. */
export interface Cell {
  text: string;
  paint?: (text: string) => string;
}

export interface Column {
  header: string;
  /** A flexible column gives up width first when the table is wider than the terminal. */
  flex?: boolean;
  min?: number;
}

/** Shortens to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  if (oneLine.length <= width) return oneLine;
  return width <= 1 ? oneLine.slice(0, width) : `${oneLine.slice(0, width - 1)}…`;
}

/**
 * Lays out rows under headers, padding on the visible text so colour codes do not
 * skew the columns. With `maxWidth` (a terminal's columns) flexible columns shrink to
 * fit; without it (piped output) nothing is cut.
 */
export function table(c: Colors, columns: Column[], rows: Cell[][], maxWidth?: number): string {
  // Escaped here as well as on the way out, so that widths count what the terminal shows.
  const cells = rows.map((row) => row.map((cell) => ({ ...cell, text: forTerminal(cell.text.replace(/\s+/g, ' ').trim()) })));
  const widths = columns.map((col, i) => Math.max(col.header.length, ...cells.map((row) => row[i]?.text.length ?? 0)));
  if (maxWidth) shrinkToFit(columns, widths, maxWidth);
  const gap = '  ';
  const line = (parts: string[]) => parts.join(gap).trimEnd();
  const header = line(columns.map((col, i) => c.bold(col.header.padEnd(widths[i]))));
  const body = cells.map((row) =>
    line(
      columns.map((_, i) => {
        const cell = row[i] ?? { text: '' };
        const text = truncate(cell.text, widths[i]);
        const padded = text.padEnd(widths[i]);
        return cell.paint ? cell.paint(text) + padded.slice(text.length) : padded;
      }),
    ),
  );
  return [header, ...body].join('\n') + '\n';
}

function shrinkToFit(columns: Column[], widths: number[], maxWidth: number): void {
  const total = () => widths.reduce((a, b) => a + b, 0) + 2 * (widths.length - 1);
  const flexible = columns.map((col, i) => (col.flex ? i : -1)).filter((i) => i >= 0);
  while (total() > maxWidth) {
    // Take one character at a time from the widest flexible column still above its minimum.
    const widest = flexible
      .filter((i) => widths[i] > Math.max(columns[i].min ?? 8, columns[i].header.length))
      .sort((a, b) => widths[b] - widths[a])[0];
    if (widest === undefined) return;
    widths[widest] -= 1;
  }
}

/** Writes a JSON document for scripts: one value, two-space indented, ending in a newline. */
export function writeJson(stream: OutputStream, value: unknown): void {
  stream.write(`${JSON.stringify(value, null, 2)}\n`);
}
