import { execFile } from 'node:child_process';

/** What one git command printed, and how it ended. */
export interface GitOutput {
  /** The exit code; -1 when git could not be started or was killed for taking too long. */
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * How long one git command may take. Worktree commands read every worktree of a
 * repository; one on a hung network file system must not hang them all.
 */
export const GIT_TIMEOUT_MS = 30_000;

/**
 * Runs git in `cwd` and resolves with what it printed, whatever its exit code: callers
 * read a non-zero code as an answer ("not an ancestor", "no upstream"), not a failure.
 */
export function runGit(cwd: string, args: readonly string[], timeoutMs = GIT_TIMEOUT_MS): Promise<GitOutput> {
  return new Promise((resolve) => {
    execFile(
      'git',
      [...args],
      // LC_ALL=C: messages shown to people are git's own, but never parsed in another language.
      { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL', env: { ...process.env, LC_ALL: 'C' } },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout, stderr });
        const code = typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : -1;
        resolve({ code, stdout: stdout ?? '', stderr: stderr || error.message });
      },
    );
  });
}

/** The first line git printed on stderr, for a message. */
export function gitMessage(output: GitOutput): string {
  return output.stderr.trim().split('\n')[0]?.replace(/^(fatal|error): /, '') || `git exited with ${output.code}`;
}
