import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/*
 * shared/baton.ts and the two classes it extends hold the operations: validate, run one
 * transaction, call the rules. The SQL lives in shared/rules/ (and the stores'), where
 * the next engineer looks for it.
 */

const root = join(__dirname, '..', '..');
const OPERATIONS = ['shared/baton.ts', 'shared/service-operations.ts', 'shared/session-operations.ts'];
const SQL = /\b(SELECT|INSERT|UPDATE|DELETE|UPSERT|CREATE|ALTER|DROP|PRAGMA|FROM|WHERE|JOIN|RETURNING|ON CONFLICT)\b/;

/** The text of every string and template literal of a file, as the compiler reads them. */
function literals(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(root, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isStringLiteralLike(node)) found.push(node.text);
    else if (ts.isTemplateExpression(node)) found.push([node.head, ...node.templateSpans.map((s) => s.literal)].map((part) => part.text).join('${}'));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sqlIn = (file: string) => literals(file).filter((text) => SQL.test(text));

const sources = (dir: string) =>
  readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(dir, f));

/**
 * SQL outside shared/rules/ and shared/store/, each with its reason. The record of
 * forwarded writes is the file store's own table, kept by the forwarding that writes it.
 */
const SQL_ELSEWHERE = new Set(['shared/forwarding/tagged-write.ts']);

describe('operations and rules', () => {
  it('finds the SQL of a rules file, so the check below can see SQL where there is some', () => {
    expect(sqlIn('shared/rules/sessions.ts').length).toBeGreaterThanOrEqual(3);
    expect(sqlIn('shared/rules/listing.ts').some((text) => text.includes('${}'))).toBe(true);
  });

  it.each(OPERATIONS)('keeps SQL out of %s: its queries are rules', (file) => {
    expect(sqlIn(file)).toEqual([]);
  });

  it('keeps SQL in shared/rules/ and shared/store/, out of the server, the CLI and the extension', () => {
    const files = [...sources('shared'), ...sources('mcp-server'), ...sources('extension')].filter(
      (file) => !file.startsWith(join('shared', 'rules')) && !file.startsWith(join('shared', 'store')) && !SQL_ELSEWHERE.has(file),
    );
    expect(files.length).toBeGreaterThan(50);
    expect(files.filter((file) => sqlIn(file).length > 0)).toEqual([]);
  });

  it('keeps shared/baton.ts under 300 lines', () => {
    expect(readFileSync(join(root, 'shared/baton.ts'), 'utf8').split('\n').length).toBeLessThan(300);
  });
});
