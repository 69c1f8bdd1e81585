import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CLIENT_CONFIG_FILES } from '../client-config.js';
import { CONFIG_FILE } from '../config.js';
import { runGit } from './git-run.js';

/**
 * The files that make a worktree ready for an agent: what `baton init` writes (the MCP
 * entries), Claude Code's shared settings (its hooks), and Baton's own settings, which
 * servers read from their worktree (a worktree without them would get other lease lengths
 * and key prefixes than the rest).
 */
export const AGENT_FILES = [...CLIENT_CONFIG_FILES, '.claude/settings.json', CONFIG_FILE] as const;

/**
 * Copies into `target` each of `AGENT_FILES` that `source` has but git does not track
 * (untracked or ignored there): git carries the tracked ones. A file the target already
 * has is left as it is. Returns the paths copied, relative to the top level.
 */
export async function copyAgentFiles(source: string, target: string): Promise<string[]> {
  const present = AGENT_FILES.filter((file) => existsSync(join(source, file)));
  if (present.length === 0) return [];
  const listed = await runGit(source, ['ls-files', '-z', '--', ...present]);
  const tracked = new Set(listed.code === 0 ? listed.stdout.split('\0').filter(Boolean) : present);
  const copied: string[] = [];
  for (const file of present) {
    if (tracked.has(file) || existsSync(join(target, file))) continue;
    mkdirSync(dirname(join(target, file)), { recursive: true });
    copyFileSync(join(source, file), join(target, file));
    copied.push(file);
  }
  return copied;
}

/**
 * The paths of `untracked` (in `worktree`) that are agent files holding exactly what the
 * main worktree's copy holds: copies `copyAgentFiles` made that nobody changed since.
 */
export function unchangedAgentCopies(mainWorktree: string, worktree: string, untracked: readonly string[]): string[] {
  const names = new Set<string>(AGENT_FILES);
  return untracked.filter((path) => names.has(path) && sameBytes(join(mainWorktree, path), join(worktree, path)));
}

function sameBytes(a: string, b: string): boolean {
  try {
    return readFileSync(a).equals(readFileSync(b));
  } catch {
    return false;
  }
}
