import type { Store } from '../shared/store/store.js';
import type { LoopResult } from './agent-loop.js';

/**
 * After a run: was any issue ever held by two agents at once? Two independent views
 * must both be clean.
 *
 * - What the agents were handed: every (issue, fence) pair is unique across all agents.
 * - What the store recorded: per issue, the fences of its `claimed` events strictly
 *   increase; each fence has exactly one token; at most one token is live; each lease
 *   had ended before the next claim of that issue, and (where transaction times follow
 *   commit order) its `ended_at` is no later than the next claim's time.
 *
 * Answers the number of violations found (0 when no issue was claimed twice).
 */
export async function countDoubleClaims(store: Store, results: readonly LoopResult[]): Promise<{ count: number; examples: string[] }> {
  // The file store and the reference take a transaction's time holding the write lock, so
  // times follow commit order. PostgreSQL takes it when the transaction begins: a claim
  // that began before the previous holder's done committed (and waited, or looked again
  // past taken rows) carries an earlier time without overlapping. Row locks order those.
  const timesFollowCommits = store.backend === 'file';
  const examples: string[] = [];
  const note = (what: string) => {
    if (examples.length < 5) examples.push(what);
  };
  let count = 0;

  const handedOut = new Set<string>();
  for (const result of results) {
    for (const claim of result.claims) {
      const id = `${claim.key}#${claim.fence}`;
      if (handedOut.has(id)) {
        count++;
        note(`${id} handed to two agents`);
      }
      handedOut.add(id);
    }
  }

  const recorded = await store.read(async (tx) => ({
    claims: await tx.all<{ issue_id: number; detail: string; at: number }>(`SELECT issue_id, detail, at FROM events WHERE type = 'claimed' ORDER BY issue_id, id`),
    tokens: await tx.all<{ issue_id: number; fence: number; state: string; ended_at: number | null }>('SELECT issue_id, fence, state, ended_at FROM tokens'),
  }));
  const tokensOf = new Map<string, { state: string; ended_at: number | null }[]>();
  const live = new Map<number, number>();
  for (const t of recorded.tokens) {
    const id = `${t.issue_id}#${t.fence}`;
    tokensOf.set(id, [...(tokensOf.get(id) ?? []), t]);
    if (t.state === 'live') live.set(Number(t.issue_id), (live.get(Number(t.issue_id)) ?? 0) + 1);
  }
  for (const [issue, n] of live) {
    if (n > 1) {
      count++;
      note(`issue ${issue} has ${n} live tokens`);
    }
  }
  for (const [id, tokens] of tokensOf) {
    if (tokens.length > 1) {
      count++;
      note(`fence ${id} was issued ${tokens.length} tokens`);
    }
  }
  let previous: { issue: number; fence: number; at: number } | undefined;
  for (const event of recorded.claims) {
    const fence = Number(/fence (\d+)/.exec(event.detail)?.[1] ?? NaN);
    const issue = Number(event.issue_id);
    const at = Number(event.at);
    if (previous && previous.issue === issue) {
      if (!(fence > previous.fence)) {
        count++;
        note(`issue ${issue}: fence ${fence} claimed after fence ${previous.fence}`);
      }
      const ended = tokensOf.get(`${issue}#${previous.fence}`)?.[0]?.ended_at;
      if (ended === null || ended === undefined) {
        count++;
        note(`issue ${issue}: fence ${previous.fence} never ended, yet fence ${fence} was claimed`);
      } else if (timesFollowCommits && Number(ended) > at) {
        count++;
        note(`issue ${issue}: fence ${previous.fence} ended at ${Number(ended)}, after fence ${fence} was claimed at ${at}`);
      }
    }
    previous = { issue, fence, at };
  }
  return { count, examples };
}

/** Agent-seconds without a single claim, and the fewest claims any agent got in any second. */
export function starvation(results: readonly LoopResult[]): { starvedAgentSeconds: number; minClaimsPerAgentSecond: number } {
  let starved = 0;
  let min = Infinity;
  for (const result of results) {
    for (const n of result.perSecond) {
      if (n === 0) starved++;
      min = Math.min(min, n);
    }
  }
  return { starvedAgentSeconds: starved, minClaimsPerAgentSecond: Number.isFinite(min) ? min : 0 };
}
