import { escapeMarkdown, formatCountdown } from './format.js';
import { isKeptAliveBy } from './renewPlan.js';
import type { ModelState } from './snapshot.js';
import type { TreeContext } from './buildTree.js';

export interface StatusSummary {
  /** With a `$(codicon)`. */
  text: string;
  /** Markdown. */
  tooltip: string;
  warning: boolean;
}

const ICON = '$(checklist)';

/** The status bar's line: live claims and the nearest expiry. Null hides the item. */
export function summarize(state: ModelState, ctx: TreeContext): StatusSummary | null {
  switch (state.kind) {
    case 'noWorkspace':
      return null;
    case 'loading':
      return { text: `${ICON} Baton`, tooltip: 'Baton is reading its database…', warning: false };
    case 'noDatabase':
      return { text: `${ICON} Baton`, tooltip: 'No Baton database in this repository yet. Create an issue to start one.', warning: false };
    case 'error':
      return { text: '$(warning) Baton', tooltip: `Baton cannot read its database: ${escapeMarkdown(state.error.message)}`, warning: true };
    case 'ready': {
      const live = state.snapshot.claims
        .map((claim) => ({ claim, msLeft: Date.parse(claim.expiresAt) - ctx.now }))
        .filter((c) => c.msLeft > 0)
        .sort((a, b) => a.msLeft - b.msLeft);
      if (live.length === 0) return { text: `${ICON} 0 claims`, tooltip: 'No live claims. Click to show the Claims view.', warning: false };
      const nearest = live[0]!;
      const kept = live.filter((c) => isKeptAliveBy(c.claim, ctx.renewer, state.snapshot.sessions, ctx.isAlive)).length;
      const countdown = formatCountdown(nearest.msLeft);
      const noun = live.length === 1 ? 'claim' : 'claims';
      return {
        text: `${ICON} ${live.length} ${noun} · ${countdown}`,
        tooltip: [
          `**${live.length}** live ${noun}; the nearest to expire is **${escapeMarkdown(nearest.claim.key)}** (${escapeMarkdown(nearest.claim.agent)}), in ${countdown}.`,
          kept > 0 ? `This window keeps ${kept} of them alive.` : 'This window keeps none of them alive.',
          'Click to show the Claims view.',
        ].join('\n\n'),
        warning: nearest.msLeft <= ctx.warningSeconds * 1000,
      };
    }
  }
}
