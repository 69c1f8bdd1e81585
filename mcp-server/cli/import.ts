import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Baton } from '../../shared/baton.js';
import type { BatonError } from '../../shared/errors.js';
import { KEY_PATTERN } from '../../shared/limits.js';
import type { Result } from '../../shared/result.js';
import { fail, ok } from '../../shared/result.js';
import type { IssueSummary } from '../../shared/types.js';
import type { CliDeps, CommonOptions } from './context.js';
import { action, withCommonOptions } from './context.js';
import { unwrap, usage } from './exit.js';
import type { ImportItem } from './import-items.js';
import { parseImportFile } from './import-items.js';
import { listAll } from './list-rows.js';

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
      const report = unwrap(await importItems(baton, items));
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
 * Creates the items that are not there yet, then adds every `blockedBy` relation that
 * is missing. References are resolved and the file's own dependency graph checked for
 * cycles before anything is written, so a bad file changes nothing.
 */
export async function importItems(baton: Baton, items: ImportItem[]): Promise<Result<ImportReport>> {
  const known = await listAll(baton, {});
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
  const resolveRef = (ref: string): { key?: string; title?: string } | null => {
    if (KEY_PATTERN.test(ref) && byKey.has(ref.toUpperCase())) return { key: ref.toUpperCase() };
    if (unique.has(ref)) return { title: ref };
    const existing = byTitle.get(ref);
    return existing ? { key: existing.key } : null;
  };
  const edges = new Map<string, { key?: string; title?: string }[]>();
  for (const item of unique.values()) {
    const targets = [];
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
  const cycle = findCycle(edges);
  if (cycle) return fail('CYCLE', `the file's dependencies form a cycle: ${cycle.join(' -> ')}`, { path: cycle });

  const report: ImportReport = { created: [], existing: [], relations: [] };
  const keyOf = new Map<string, string>();
  const blockersNow = new Map<string, Set<string>>();
  for (const item of unique.values()) {
    const existing = byTitle.get(item.title);
    if (existing) {
      keyOf.set(item.title, existing.key);
      blockersNow.set(existing.key, new Set(existing.blockedBy));
      report.existing.push({ key: existing.key, title: existing.title });
      continue;
    }
    const created = await baton.createIssue({
      title: item.title,
      body: item.body,
      priority: item.priority,
      labels: item.labels,
    });
    if (!created.ok) return at(item, created.error);
    keyOf.set(item.title, created.value.issue.key);
    blockersNow.set(created.value.issue.key, new Set());
    report.created.push({ key: created.value.issue.key, title: item.title });
  }
  for (const item of unique.values()) {
    const key = keyOf.get(item.title)!;
    for (const target of edges.get(item.title) ?? []) {
      const blocker = target.key ?? keyOf.get(target.title!)!;
      if (blockersNow.get(key)?.has(blocker)) continue;
      const related = await baton.relate({ key, type: 'blockedBy', other: blocker });
      if (!related.ok) return at(item, related.error);
      blockersNow.get(key)?.add(blocker);
      report.relations.push({ key, blockedBy: blocker });
    }
  }
  return ok(report);
}

/** A refusal of the core, told with the place in the file that caused it. */
function at<T>(item: ImportItem, error: BatonError): Result<T> {
  return { ok: false, error: { ...error, message: `${item.where}: ${error.message}`, where: item.where } };
}

/** A dependency cycle among the file's items (by title), or null. */
function findCycle(edges: Map<string, { title?: string }[]>): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (title: string): string[] | null => {
    if (state.get(title) === 'done') return null;
    if (state.get(title) === 'visiting') return [...path.slice(path.indexOf(title)), title];
    state.set(title, 'visiting');
    path.push(title);
    for (const next of edges.get(title) ?? []) {
      if (next.title === undefined) continue;
      const found = visit(next.title);
      if (found) return found;
    }
    path.pop();
    state.set(title, 'done');
    return null;
  };
  for (const title of edges.keys()) {
    const found = visit(title);
    if (found) return found;
  }
  return null;
}
