import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Baton } from '../../shared/baton.js';
import type { BatonError } from '../../shared/errors.js';
import { StoreUnavailableError } from '../../shared/errors.js';
import { KEY_PATTERN, LIMITS } from '../../shared/limits.js';
import type { Result } from '../../shared/result.js';
import { fail, ok } from '../../shared/result.js';
import { recordEvent } from '../../shared/rules/activity.js';
import { lockIssueCreation } from '../../shared/rules/creation-lock.js';
import { findIssue } from '../../shared/rules/issues.js';
import { listIssues } from '../../shared/rules/listing.js';
import { changeRelation } from '../../shared/rules/relations.js';
import type { IssueRow } from '../../shared/rules/rows.js';
import { createIssue } from '../../shared/rules/tracking.js';
import type { Store, Tx } from '../../shared/store/store.js';
import type { IssueSummary } from '../../shared/types.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap, usage } from './exit.js';
import type { ImportItem } from './import-items.js';
import { parseImportFile } from './import-items.js';

interface Ref {
  key: string;
  title: string;
}

/** What an import did; the same file imported again reports everything under `existing`. */
export interface ImportReport {
  created: Ref[];
  existing: Ref[];
  relations: { key: string; blockedBy: string }[];
}

/** `baton import FILE`: issues from JSON, JSON lines or `gh issue list --json` output. */
export function registerImportCommand(program: Command, deps: CliDeps): void {
  withCommonOptions(
    program
      .command('import')
      .summary('create issues from JSON, JSON lines or gh issue list output')
      .description(
        'create issues from a JSON array, JSON lines, or `gh issue list --json number,title,body,labels`; ' +
          'an issue whose title already exists is kept as it is, so importing again changes nothing',
      )
      .argument('<file>', 'the file to read, or - for standard input'),
  ).action(
    action<CommonOptions, [string]>(deps, async (ctx, _opts, file) => {
      let text: string;
      try {
        text = readFileSync(file === '-' ? 0 : resolve(deps.cwd, file), 'utf8');
      } catch (error) {
        throw usage(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { file });
      }
      const items = unwrap(parseImportFile(text, file));
      const { baton, store } = await ctx.open();
      const report = unwrap(await importItems(store, baton, items));
      if (report.created.length + report.relations.length > 0) {
        // Committed already; statistics only speed dispatch up, and autovacuum gets there too.
        await store.analyze().catch((error: unknown) => {
          ctx.log(`baton import: could not refresh the query planner's statistics (${error instanceof Error ? error.message : String(error)})`);
        });
      }
      if (ctx.json) return ctx.printJson(report);
      for (const ref of report.created) ctx.print(`${ctx.out.green('created')}  ${ctx.out.bold(ref.key)}  ${ref.title}`);
      for (const ref of report.existing) ctx.print(`${ctx.out.dim('exists ')}  ${ctx.out.bold(ref.key)}  ${ref.title}`);
      for (const rel of report.relations) ctx.print(`${ctx.out.green('linked ')}  ${rel.key} blocked by ${rel.blockedBy}`);
      ctx.print(
        `${report.created.length} created, ${report.existing.length} already there, ${report.relations.length} dependencies added.`,
      );
    }),
  );
}

/**
 * Creates the items whose title is not there yet, with their `blockedBy` relations, as one
 * write transaction: it is all or nothing, and imports run one after another, so the
 * titles an import finds are still the only ones when it creates the rest. References are
 * resolved, and the dependencies checked for cycles, before anything is written.
 */
export async function importItems(store: Store, baton: Baton, items: ImportItem[]): Promise<Result<ImportReport>> {
  try {
    return await store.write((tx) => importInto(tx, baton, items));
  } catch (error) {
    // Answered as every operation of the core answers it: nothing was written.
    if (error instanceof StoreUnavailableError) return fail('STORE_UNAVAILABLE', error.message, { path: error.path, reason: error.reason });
    throw error;
  }
}

/** A `blockedBy` reference resolved: an issue in the database, or an item of the file. */
type Target = { key: string } | { title: string };

/**
 * An item whose title exists is kept as it is: nothing of it is written, its own
 * `blockedBy` included. Only new issues get relations, so an issue already there gains one
 * only as the blocker of a new issue.
 */
async function importInto(tx: Tx, baton: Baton, items: ImportItem[]): Promise<Result<ImportReport>> {
  await lockIssueCreation(tx);
  const known = await allIssues(tx);
  if (!known.ok) return known;
  const byTitle = new Map<string, IssueSummary>();
  const byKey = new Map<string, IssueSummary>();
  for (const issue of known.value) {
    if (!byTitle.has(issue.title)) byTitle.set(issue.title, issue);
    byKey.set(issue.key.toUpperCase(), issue);
  }

  // One item per title: a repeated title in the file is the same issue.
  const unique = new Map<string, ImportItem>();
  for (const item of items) if (!unique.has(item.title)) unique.set(item.title, item);

  // A reference is a key of an existing issue, else a title in the file or the database.
  const resolveRef = (ref: string): Target | null => {
    if (KEY_PATTERN.test(ref) && byKey.has(ref.toUpperCase())) return { key: ref.toUpperCase() };
    if (unique.has(ref)) return { title: ref };
    const existing = byTitle.get(ref);
    return existing ? { key: existing.key } : null;
  };
  const edges = new Map<string, Target[]>();
  for (const item of unique.values()) {
    const targets: Target[] = [];
    for (const ref of item.blockedBy ?? []) {
      const target = resolveRef(ref);
      if (!target) {
        return fail('INVALID_INPUT', `${item.where}: blockedBy "${ref}" names no issue in the file or the database`, {
          where: item.where,
          ref,
        });
      }
      targets.push(target);
    }
    edges.set(item.title, targets);
  }
  const cycle = findCycle(dependencyGraph(known.value, unique, edges, byTitle), [...unique.keys()].map((title) => itemNode(title, byTitle)));
  if (cycle) {
    const path = cycle.map(nodeName);
    return fail('CYCLE', `the file's dependencies, with those in the database, form a cycle: ${path.join(' -> ')}`, { path });
  }

  const report: ImportReport = { created: [], existing: [], relations: [] };
  const keyOf = new Map<string, string>();
  const created = new Map<string, IssueRow>();
  for (const item of unique.values()) {
    const existing = byTitle.get(item.title);
    if (existing) {
      keyOf.set(item.title, existing.key);
      report.existing.push({ key: existing.key, title: existing.title });
      continue;
    }
    const row = await createIssue(tx, baton.caller, baton.config.prefix, {
      title: item.title,
      body: item.body,
      priority: item.priority,
      labels: item.labels,
    });
    if (!row.ok) return at(item, row.error);
    keyOf.set(item.title, row.value.key);
    created.set(item.title, row.value);
    report.created.push({ key: row.value.key, title: item.title });
  }
  for (const item of unique.values()) {
    const row = created.get(item.title);
    if (!row) continue;
    const linked = new Set<string>();
    for (const target of edges.get(item.title) ?? []) {
      const blocker = 'key' in target ? target.key : keyOf.get(target.title)!;
      if (linked.has(blocker)) continue;
      linked.add(blocker);
      const found = await findIssue(tx, blocker);
      if (!found.ok) return at(item, found.error);
      const related = await changeRelation(tx, row.id, 'blockedBy', found.value.id, false);
      if (!related.ok) return at(item, related.error);
      // As `relate` records it; the issue's updated_at is already this transaction's time.
      await recordEvent(tx, row, 'related', baton.caller.agent, `added: blockedBy ${blocker}`);
      report.relations.push({ key: row.key, blockedBy: blocker });
    }
  }
  return ok(report);
}

/** Every issue, read a page at a time inside the import's transaction. */
async function allIssues(tx: Tx): Promise<Result<IssueSummary[]>> {
  const issues: IssueSummary[] = [];
  let cursor: string | undefined;
  do {
    const page = await listIssues(tx, { limit: LIMITS.listMax, cursor });
    if (!page.ok) return page;
    issues.push(...page.value.issues);
    cursor = page.value.nextCursor ?? undefined;
  } while (cursor);
  return ok(issues);
}

/** A refusal of the core, told with the place in the file that caused it. */
function at<T>(item: ImportItem, error: BatonError): Result<T> {
  return { ok: false, error: { ...error, message: `${item.where}: ${error.message}`, where: item.where } };
}

// Nodes of the dependency graph: `key:BAT-7` for an issue in the database (an item whose
// title exists is that issue), `title:...` for an item to create. The prefixes keep a new
// title that reads like a key apart from the issue with that key.
function itemNode(title: string, byTitle: Map<string, IssueSummary>): string {
  const existing = byTitle.get(title);
  return existing ? `key:${existing.key}` : `title:${title}`;
}

/** How a node reads in a message: an issue by its key, an item to create by its title. */
function nodeName(node: string): string {
  return node.startsWith('key:') ? node.slice('key:'.length) : node.slice('title:'.length);
}

/**
 * Each node to the nodes that block it: the database's relations and every item's
 * `blockedBy`, those of items that exist included. None of the latter is written, but a
 * file that asks for a cycle with the database is refused rather than half followed.
 */
function dependencyGraph(
  known: IssueSummary[],
  unique: Map<string, ImportItem>,
  edges: Map<string, Target[]>,
  byTitle: Map<string, IssueSummary>,
): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const issue of known) graph.set(`key:${issue.key}`, issue.blockedBy.map((key) => `key:${key}`));
  for (const title of unique.keys()) {
    const node = itemNode(title, byTitle);
    const targets = (edges.get(title) ?? []).map((t) => ('key' in t ? `key:${t.key}` : itemNode(t.title, byTitle)));
    graph.set(node, [...(graph.get(node) ?? []), ...targets]);
  }
  return graph;
}

/**
 * A cycle reachable from `starts`, as the nodes along it with the first repeated at the
 * end, or null. Depth first with a stack of its own, so a long chain of dependencies in
 * the database cannot overflow the call stack.
 */
function findCycle(graph: Map<string, string[]>, starts: string[]): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  for (const start of starts) {
    if (state.has(start)) continue;
    state.set(start, 'visiting');
    const path = [start];
    const nextIndex = [0];
    while (path.length > 0) {
      const node = path[path.length - 1];
      const next = (graph.get(node) ?? [])[nextIndex[nextIndex.length - 1]++];
      if (next === undefined) {
        state.set(node, 'done');
        path.pop();
        nextIndex.pop();
      } else if (state.get(next) === 'visiting') {
        return [...path.slice(path.indexOf(next)), next];
      } else if (!state.has(next)) {
        state.set(next, 'visiting');
        path.push(next);
        nextIndex.push(0);
      }
    }
  }
  return null;
}
