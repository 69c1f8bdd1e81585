import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/**
 * The push guard's hook (docs/protocol.md, "Git: the push guard"): a `pre-push` in the
 * folder git runs hooks from, which `git rev-parse --git-path hooks` names. That is the
 * common dir's `hooks`, shared by every worktree, or `core.hooksPath` when set. A hook
 * already there is moved aside byte for byte (a rename keeps its mode too), run first with
 * the same arguments and input, and put back by `uninstall`.
 */

export const HOOK_NAME = 'pre-push';
export const CHAINED_NAME = 'pre-push.baton-chained';
/** The line that marks a hook as Baton's: only a file holding it is ever rewritten or removed. */
export const HOOK_MARKER = '# baton-guard: written by `baton guard install`';

/** How the hook starts the check: this build's script with the Node that runs it. */
export interface GuardLaunch {
  node: string;
  script: string;
}

export interface HookStatus {
  hooksDir: string;
  hook: string;
  /** Whether `core.hooksPath` is set, and relative: then each worktree has a folder of its own. */
  hooksPath: string | null;
  perWorktree: boolean;
  /** `baton`: the guard is installed; `other`: a pre-push hook that is not Baton's; `none`. */
  installed: 'baton' | 'other' | 'none';
  /** The script the installed guard runs, when it is Baton's. */
  launch: GuardLaunch | null;
  /** The hook Baton moved aside and runs first, or null. */
  chained: string | null;
}

export class HookError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'HookError';
  }
}

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).replace(/\r?\n$/, '');
}

/** Where git runs this repository's hooks from, as seen from `cwd`; throws `HookError` outside git. */
export function hooksFolder(cwd: string): { dir: string; hooksPath: string | null } {
  let dir: string;
  try {
    dir = git(cwd, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks']);
  } catch {
    throw new HookError(`${cwd} is not in a git repository`, cwd);
  }
  let hooksPath: string | null = null;
  try {
    hooksPath = git(cwd, ['config', '--get', 'core.hooksPath']) || null;
  } catch {
    // Not set: git exits 1.
  }
  return { dir, hooksPath };
}

function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * The hook: runs the chained hook first (a refusal stops the push), then the check. A
 * Baton build that is gone lets the push through with a warning, as the check does when
 * it cannot answer: nobody is blocked by a guard that cannot tell. It starts no process
 * but the check (and the chained hook, whose input is then kept in a temporary file to
 * be read twice): each costs a push tens of milliseconds on a loaded machine.
 */
export function hookScript(launch: GuardLaunch): string {
  return `#!/bin/sh
${HOOK_MARKER} (docs/protocol.md, "Git: the push guard").
# \`baton guard uninstall\` removes it and puts back the hook it chains, if any.
node=${quote(launch.node)}
baton=${quote(launch.script)}
case "$0" in */*) chained="\${0%/*}/${CHAINED_NAME}" ;; *) chained="./${CHAINED_NAME}" ;; esac
if [ ! -f "$baton" ] || [ ! -x "$node" ]; then
  echo "baton: warning: the push guard cannot find $baton; the push is not checked (run baton guard install again)" >&2
  if [ -x "$chained" ]; then exec "$chained" "$@"; fi
  exit 0
fi
if [ -x "$chained" ]; then
  input=$(mktemp) || exit 1
  trap 'rm -f "$input"' EXIT
  cat > "$input"
  "$chained" "$@" < "$input" || exit $?
  "$node" "$baton" guard check "$@" < "$input"
  exit $?
fi
exec "$node" "$baton" guard check "$@"
`;
}

function isOurs(file: string): boolean {
  try {
    return readFileSync(file, 'utf8').includes(HOOK_MARKER);
  } catch {
    return false;
  }
}

function exists(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function launchIn(file: string): GuardLaunch | null {
  const text = readFileSync(file, 'utf8');
  const node = /^node='((?:[^']|'\\'')*)'$/m.exec(text);
  const script = /^baton='((?:[^']|'\\'')*)'$/m.exec(text);
  if (!node || !script) return null;
  const unquote = (v: string) => v.replace(/'\\''/g, "'");
  return { node: unquote(node[1]), script: unquote(script[1]) };
}

export function hookStatus(cwd: string): HookStatus {
  const { dir, hooksPath } = hooksFolder(cwd);
  const hook = join(dir, HOOK_NAME);
  const chained = join(dir, CHAINED_NAME);
  const ours = isOurs(hook);
  return {
    hooksDir: dir,
    hook,
    hooksPath,
    perWorktree: hooksPath !== null && !isAbsolute(hooksPath) && !hooksPath.startsWith('~'),
    installed: ours ? 'baton' : exists(hook) ? 'other' : 'none',
    launch: ours ? launchIn(hook) : null,
    chained: ours && exists(chained) ? chained : null,
  };
}

/**
 * Installs the guard; `changed` is false when exactly this hook was already there. A
 * hook of someone else's is moved aside to be chained; refused when something already
 * sits where it would go, rather than overwrite either.
 */
export function installHook(cwd: string, launch: GuardLaunch): { status: HookStatus; changed: boolean } {
  const before = hookStatus(cwd);
  const script = hookScript(launch);
  if (before.installed === 'baton' && readFileSync(before.hook, 'utf8') === script) return { status: before, changed: false };
  const chained = join(before.hooksDir, CHAINED_NAME);
  if (before.installed === 'other') {
    if (exists(chained)) {
      throw new HookError(`both ${before.hook} and ${chained} exist and neither is Baton's guard; move one of them away first`, chained);
    }
    renameSync(before.hook, chained);
  }
  mkdirSync(before.hooksDir, { recursive: true });
  // Written beside it and renamed over it: a push starting meanwhile runs the old hook or the new one, whole.
  const temporary = `${before.hook}.baton-${process.pid}.tmp`;
  writeFileSync(temporary, script, { mode: 0o755 });
  chmodSync(temporary, 0o755);
  renameSync(temporary, before.hook);
  return { status: hookStatus(cwd), changed: true };
}

/** Removes Baton's hook and puts back the one it chained; touches nothing that is not Baton's. */
export function uninstallHook(cwd: string): { status: HookStatus; changed: boolean } {
  const before = hookStatus(cwd);
  if (before.installed !== 'baton') return { status: before, changed: false };
  unlinkSync(before.hook);
  const chained = join(before.hooksDir, CHAINED_NAME);
  if (exists(chained)) renameSync(chained, before.hook);
  return { status: hookStatus(cwd), changed: true };
}

