import * as vscode from 'vscode';
import { buildTree, type TreeContext, type TreeMemo } from '../model/buildTree.js';
import type { ClaimsModel } from '../model/claimsModel.js';
import type { ClaimNode, GroupNode, IssueNode, TreeNode } from '../model/treeNodes.js';
import { ClaimTreeItem } from './claimTreeItem.js';
import type { CountdownDecorations } from './countdownDecorations.js';
import { DetailTreeItem } from './detailTreeItem.js';
import { GroupTreeItem } from './groupTreeItem.js';
import { IssueTreeItem } from './issueTreeItem.js';
import { tooltip } from './markdown.js';

/**
 * Renders the model as the Claims tree. A change redraws only the groups whose rows
 * changed (VS Code fetches every row of a group it redraws: hundreds on a large
 * database, with agents changing the store several times a second); the whole tree only
 * when groups come or go. The once-a-second tick so redraws the Claimed group alone,
 * whose countdowns move; a store change that moved only countdowns and times (a
 * renewal, a sign of life) waits for that tick, within a second, rather than redrawing
 * the group once more. Tooltips are written when a row is hovered
 * (`resolveTreeItem`).
 */
export class ClaimsTreeProvider implements vscode.TreeDataProvider<TreeNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private groups: GroupNode[] = [];
  private readonly parents = new Map<TreeNode, TreeNode>();
  private readonly subscription: vscode.Disposable;
  private readonly memo: TreeMemo = new Map();

  constructor(
    private readonly model: ClaimsModel,
    private readonly context: () => TreeContext,
    private readonly decorations: CountdownDecorations,
  ) {
    this.subscription = model.onDidChange(() => this.refresh({ claimsWaitForTick: true }));
    this.groups = this.build();
    this.index();
  }

  /** The nodes as drawn now, for commands and tests. */
  get roots(): readonly GroupNode[] {
    return this.groups;
  }

  /**
   * Rebuilds from the model and redraws the groups whose rows changed, or everything when
   * groups came or went. Every redraw is messages to the window and back, which cost the
   * extension host more than the rows themselves: with `claimsWaitForTick`, Claimed
   * keeps its rows while only their countdowns and times moved.
   */
  refresh(options: { claimsWaitForTick?: boolean } = {}): void {
    const next = this.build();
    const sameGroups = next.length === this.groups.length && next.every((g, i) => g.id === this.groups[i]?.id);
    if (!sameGroups) return this.show(next);
    // Keep the group objects VS Code holds, so it redraws just the subtrees that changed.
    const changed = this.groups.filter((group, i) => {
      const { children: rows, more } = next[i];
      if (group.more === more && sameRows(group.children, rows)) return false;
      if (options.claimsWaitForTick && group.id === 'claimed' && group.more === more && sameClaims(group.children, rows)) return false;
      group.children = rows;
      group.more = more;
      return true;
    });
    if (changed.length === 0) return;
    this.index();
    for (const group of changed) this.changed.fire(group);
  }

  /** Moves the countdowns on: redraws the Claimed group, unless the groups changed. */
  tick(): void {
    this.refresh();
    // An expired lease changes no version until a sweep: reload so it leaves the Claimed group.
    const claimed = this.groups.find((g) => g.id === 'claimed');
    if (claimed?.children.some((c) => c.kind === 'claim' && c.msLeft <= 0)) void this.model.refresh();
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group':
        return new GroupTreeItem(node);
      case 'claim':
        return new ClaimTreeItem(node);
      case 'issue':
        return new IssueTreeItem(node);
      case 'detail':
        return new DetailTreeItem(node);
    }
  }

  /** The tooltip of an issue or a claim, written when its row is hovered. */
  resolveTreeItem(item: vscode.TreeItem, node: TreeNode): vscode.TreeItem {
    if (item.tooltip === undefined && (node.kind === 'issue' || node.kind === 'claim')) item.tooltip = tooltip(node.tooltip);
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    if (!node) return this.groups;
    if (node.kind === 'group') return node.children;
    if (node.kind === 'claim') return node.details;
    return [];
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.parents.get(node);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }

  private build(): GroupNode[] {
    const state = this.model.state;
    return state.kind === 'ready' ? buildTree(state.snapshot, this.context(), this.memo) : [];
  }

  private show(groups: GroupNode[]): void {
    this.groups = groups;
    this.index();
    this.changed.fire(undefined);
  }

  private index(): void {
    const claimed = this.groups.find((g) => g.id === 'claimed')?.children ?? [];
    this.decorations.update(claimed.flatMap((c) => (c.kind === 'claim' && c.warning ? [c.key] : [])));
    this.indexParents();
  }

  private indexParents(): void {
    this.parents.clear();
    for (const group of this.groups) {
      for (const child of group.children) {
        this.parents.set(child, group);
        if (child.kind === 'claim') for (const detail of child.details) this.parents.set(detail, child);
      }
    }
  }
}

/** Whether two lists of a group's rows would be drawn alike (an issue's tooltip follows its stamp). */
function sameRows(a: ReadonlyArray<ClaimNode | IssueNode>, b: ReadonlyArray<ClaimNode | IssueNode>): boolean {
  return a === b || (a.length === b.length && a.every((row, i) => sameRow(row, b[i])));
}

/** Whether two lists of claim rows differ only in what a renewal or a sign of life moves: countdowns and times. */
function sameClaims(a: ReadonlyArray<ClaimNode | IssueNode>, b: ReadonlyArray<ClaimNode | IssueNode>): boolean {
  return a.length === b.length && a.every((row, i) => sameClaim(row, b[i]));
}

function sameClaim(a: ClaimNode | IssueNode, b: ClaimNode | IssueNode): boolean {
  if (a.kind !== 'claim' || b.kind !== 'claim') return false;
  return (
    a.id === b.id &&
    a.fence === b.fence &&
    a.agent === b.agent &&
    a.warning === b.warning &&
    a.idle === b.idle &&
    a.keptAliveHere === b.keptAliveHere &&
    a.hasCheckpoint === b.hasCheckpoint &&
    a.overlaps.length === b.overlaps.length
  );
}

function sameRow(a: ClaimNode | IssueNode, b: ClaimNode | IssueNode): boolean {
  if (a.kind === 'issue' && b.kind === 'issue') {
    return a.id === b.id && a.title === b.title && a.description === b.description && a.hasCheckpoint === b.hasCheckpoint && a.stamp === b.stamp;
  }
  // Few claims, and their tooltip changes with every countdown: compared in full.
  return a.kind === 'claim' && b.kind === 'claim' && claimStamp(a) === claimStamp(b);
}

function claimStamp(row: ClaimNode): string {
  return [row.id, row.tooltip, row.description, row.warning, row.idle, row.keptAliveHere, ...row.details.flatMap((d) => [d.value, d.tooltip])].join('\n');
}
