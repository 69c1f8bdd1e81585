import type { SummaryRow } from '../rules/history.js';
import { iso } from '../rules/rows.js';
import type { StoryLine } from './story.js';

/** The one line that tells what retention folded: counts by kind, and when. */
export function foldedLine(rows: readonly SummaryRow[]): { at: number; line: Omit<StoryLine, 'at'> } | null {
  if (rows.length === 0) return null;
  const first = Math.min(...rows.map((r) => Number(r.first_at)));
  const last = Math.max(...rows.map((r) => Number(r.last_at)));
  const counts = [...rows].sort((a, b) => Number(b.count) - Number(a.count) || a.type.localeCompare(b.type)).map((r) => `${r.count} ${r.type}`);
  return {
    at: first,
    line: { kind: 'folded', agent: '', worktree: null, text: `older history, folded by retention: ${counts.join(', ')} between ${iso(first)} and ${iso(last)}` },
  };
}
