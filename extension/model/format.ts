/** Text for durations and times, the same in the tree, the status bar and documents. */

/** `29:41`, `1:02:03`, or `expired`: whole seconds left, rounded up so `0:00` never shows on a live lease. */
export function formatCountdown(msLeft: number): string {
  if (msLeft <= 0) return 'expired';
  const total = Math.ceil(msLeft / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const ss = String(seconds).padStart(2, '0');
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, '0')}:${ss}` : `${minutes}:${ss}`;
}

/** `just now`, `42 s ago`, `5 min ago`, `3 h ago`, `2 days ago`. */
export function formatAgo(iso: string, now: number): string {
  const seconds = Math.floor((now - Date.parse(iso)) / 1000);
  if (Number.isNaN(seconds)) return iso;
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.floor(hours / 24)} days ago`;
}

/** `2026-01-01 12:00:03 UTC`: unambiguous for people in any time zone. */
export function formatTime(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

export function formatPriority(priority: number): string {
  return `P${priority}`;
}

/** The first line of a note, cut to `max` characters. */
export function firstLine(text: string, max = 80): string {
  const line = text.split(/\r?\n/, 1)[0]?.trim() ?? '';
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

/**
 * Escapes text for markdown so a title such as `*wip* [x](y)` shows as typed, while
 * plain words (keys, names, paths) stay readable in the markdown source too.
 */
export function escapeMarkdown(text: string): string {
  const inline = text.replace(/[\\`*_[\]<>|~]/g, (c) => `\\${c}`);
  // Only at the start of a line do these begin a heading, quote or list.
  return inline.replace(/^([#>+-]|\d+\.)/gm, '\\$1');
}

/** Seven characters of a commit, as git shows them. */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}
