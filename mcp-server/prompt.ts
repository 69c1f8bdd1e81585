import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

/** The work loop, as an agent should follow it. */
export const WORK_LOOP = `You take work from Baton, which hands each issue to exactly one agent with a lease.

1. Call next_issue (or claim_issue with a key). Keep the answer's claimToken: every lease call needs it.
   { issue: null } means nothing is ready: stop, or create_issue for work you know of.
2. Work on the branch the answer names (git switch -c <branch>, or switch to it if it exists).
   If resumed is true, read the checkpoint (note, state, git) and continue from it; do not start over.
   If the answer has continueFrom, the branch is checked out in another worktree: run its commands, in
   order, in yours (they detach that worktree and take the branch here, at its last commit).
3. Call checkpoint at each milestone with a note another agent could resume from (and state, if useful).
   It renews the lease. In long stretches without a milestone call heartbeat, well before expiresAt
   (about every third of the lease). Nothing else renews: comments and edits do not.
4. When the work is committed on the branch, call done with a summary (or submit_for_review when a
   reviewer should look first). To stop without finishing, checkpoint, then release.
5. On CLAIM_LOST: the lease is gone (expired, taken over, finished). Stop work on that issue at once,
   do not retry the call, and take new work with next_issue. Your checkpoints stay for the next agent.
6. After a restart of your session (new process), call claim_issue with the key and the claimToken you
   held before: you get the same lease back with a fresh token. A CLAIM_MISMATCH answer means exactly this.
7. Then go back to 1.

Other errors: ALREADY_CLAIMED, BLOCKED or NOT_READY on a claim: pick other work. FORBIDDEN: the token
is not yours. INVALID_INPUT: fix the fields named. STORE_UNAVAILABLE: nothing changed, try again shortly.
Never share a claimToken: it is what proves the lease is yours.`;

/** Registers the `work_loop` prompt. */
export function registerWorkLoopPrompt(server: McpServer): void {
  server.registerPrompt(
    'work_loop',
    {
      title: 'Baton work loop',
      description: 'How to take, renew, hand over and finish issues with Baton.',
    },
    () => ({
      description: 'The Baton work loop',
      messages: [{ role: 'user', content: { type: 'text', text: WORK_LOOP } }],
    }),
  );
}
