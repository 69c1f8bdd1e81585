import type { Baton } from '../../shared/baton.js';
import { ok, type Result } from '../../shared/result.js';
import type { ModelState } from './snapshot.js';
import type { TreeNode } from './treeNodes.js';

/** The claim a person saw and asked to release. */
export interface SeenClaim {
  key: string;
  /** Its holder, for the question. */
  agent?: string;
  /** Which claim of the issue it was; undefined when the view had not read it. */
  fence?: number;
}

/**
 * The claim the command was given: the row itself when it came from the tree (what the
 * person saw), otherwise the claim of that key in the view's state at the moment.
 */
export function seenClaim(arg: unknown, key: string, state: ModelState): SeenClaim {
  const node = arg as TreeNode | undefined;
  if (node?.kind === 'claim' && node.key === key) return { key, agent: node.agent, fence: node.fence };
  const snapshot = state.kind === 'ready' ? state.snapshot : undefined;
  const claim = snapshot?.claims.find((c) => c.key === key);
  return claim ? { key, agent: claim.agent, fence: snapshot?.fences[key] } : { key };
}

/**
 * Releases the claim a person confirmed and only that one: the question stays open as
 * long as they like, and a claim another agent took meanwhile is not theirs to end.
 * Says what happened, for the person.
 */
export async function releaseSeenClaim(
  baton: Pick<Baton, 'releaseAsOperator' | 'getIssue'>,
  claim: SeenClaim,
): Promise<Result<{ released: boolean; message: string }>> {
  const result = await baton.releaseAsOperator({ key: claim.key, fence: claim.fence, note: 'Released from VS Code' });
  if (!result.ok) return result;
  if (result.value.released) return ok({ released: true, message: `Baton: released ${claim.key}.` });
  const now = await baton.getIssue({ key: claim.key });
  const holder = now.ok ? now.value.lease?.agent : undefined;
  return ok({
    released: false,
    message: holder === undefined ? `Baton: ${claim.key} had no live lease.` : `Baton: ${claim.key} is now held by ${holder}; nothing released.`,
  });
}
