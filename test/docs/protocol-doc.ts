import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository's top level, where docs/protocol.md and the sources are. */
export const ROOT = join(__dirname, '..', '..');

/** A markdown table: its header cells and its rows of cells, as written. */
export interface Table {
  header: string[];
  rows: string[][];
}

/** The text of docs/protocol.md. */
export function readProtocol(): string {
  return readFileSync(join(ROOT, 'docs', 'protocol.md'), 'utf8');
}

/** The text of section `n` (`## n. Title`), up to the next `## ` heading. */
export function section(doc: string, n: number): string {
  const start = doc.search(new RegExp(`^## ${n}\\. `, 'm'));
  if (start < 0) throw new Error(`docs/protocol.md has no section ${n}`);
  const rest = doc.slice(start + 1);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Every table of `text`; a `\|` inside a cell is part of the cell. */
export function tables(text: string): Table[] {
  const found: Table[] = [];
  let lines: string[] = [];
  const flush = () => {
    if (lines.length >= 2) {
      const [header, , ...rows] = lines.map(cells);
      found.push({ header, rows });
    }
    lines = [];
  };
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('|')) lines.push(line.trim());
    else flush();
  }
  flush();
  return found;
}

function cells(line: string): string[] {
  return line
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

/** The rows of every table whose first header cell is `first` (`tool`, `code`, `command`). */
export function rowsOf(text: string, first: string): string[][] {
  return tables(text)
    .filter((table) => table.header[0] === first)
    .flatMap((table) => table.rows);
}

/** The words written as code (inside backticks) in `text`: names of tools, fields, codes, settings. */
export function codeWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const span of text.matchAll(/`([^`]+)`/g)) {
    for (const word of span[1].matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) words.add(word[0]);
  }
  return words;
}

/** The one name in backticks that opens a cell: `` `next_issue` `` gives `next_issue`. */
export function nameIn(cell: string): string {
  const match = /^`([^`]+)`/.exec(cell);
  if (!match) throw new Error(`expected a name in backticks, found: ${cell}`);
  return match[1];
}

/**
 * The property names of a JSON schema, at every depth (objects, array items, unions),
 * without the keywords of JSON Schema itself.
 */
export function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (!schema || typeof schema !== 'object') return into;
  const node = schema as Record<string, unknown>;
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  for (const [name, child] of Object.entries(properties)) {
    into.add(name);
    propertyNames(child, into);
  }
  for (const key of ['items', 'additionalProperties']) propertyNames(node[key], into);
  for (const key of ['anyOf', 'oneOf', 'allOf']) for (const child of (node[key] as unknown[] | undefined) ?? []) propertyNames(child, into);
  return into;
}

/** The source files (`.ts`) under the given folders of the repository. */
export function sourceFiles(...folders: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push(path);
    }
  };
  for (const folder of folders) walk(join(ROOT, folder));
  return files;
}

/**
 * Every `BATON_*` environment variable the sources read or set for a child:
 * `env.BATON_X` (also `env?.` and `env['BATON_X']`) and a quoted 'BATON_X' naming a
 * setting. Constants spelled BATON_* in code (an application id, a build define) are
 * neither, and a name only a comment mentions is not counted.
 */
export function environmentVariablesIn(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\benv\??\.(BATON_[A-Z0-9_]+)|\benv\[['"](BATON_[A-Z0-9_]+)['"]\]|['"](BATON_[A-Z0-9_]+)['"]/g)) {
      names.add(match[1] ?? match[2] ?? match[3]);
    }
  }
  return names;
}
