import { LIMITS, PRIORITY_MAX, PRIORITY_MIN } from '../../shared/limits.js';
import type { Result } from '../../shared/result.js';
import { fail, ok } from '../../shared/result.js';
import { check } from '../../shared/validate.js';

/** One issue to import, whatever file it came from. */
export interface ImportItem {
  title: string;
  body?: string;
  priority?: number;
  labels?: string[];
  /** Keys of existing issues, or titles of issues in the file or the database. */
  blockedBy?: string[];
  /** Where it was read, for messages: `item 3` or `line 7`. */
  where: string;
}

/**
 * Reads a JSON array, JSON lines, or the output of
 * `gh issue list --json number,title,body,labels` (an array whose labels are objects).
 */
export function parseImportFile(text: string, file: string): Result<ImportItem[]> {
  const trimmed = text.trim();
  if (!trimmed) return ok([]);
  const records: { value: unknown; where: string }[] = [];
  if (trimmed.startsWith('[')) {
    let values: unknown;
    try {
      values = JSON.parse(trimmed);
    } catch (error) {
      return fail('INVALID_INPUT', `${file} is not valid JSON: ${(error as Error).message}`, { file });
    }
    (values as unknown[]).forEach((value, i) => records.push({ value, where: `item ${i + 1}` }));
  } else {
    const lines = text.split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i].trim()) continue;
      try {
        records.push({ value: JSON.parse(lines[i]), where: `line ${i + 1}` });
      } catch (error) {
        return fail('INVALID_INPUT', `${file} line ${i + 1} is not valid JSON: ${(error as Error).message}`, {
          file,
          line: i + 1,
        });
      }
    }
  }
  const items: ImportItem[] = [];
  for (const { value, where } of records) {
    const item = toItem(value, where);
    if (typeof item === 'string') return fail('INVALID_INPUT', `${file} ${where}: ${item}`, { file, where });
    items.push(item);
  }
  return ok(items);
}

/** An item, or why it is not one. */
function toItem(value: unknown, where: string): ImportItem | string {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return 'expected an object with a title';
  const record = value as Record<string, unknown>;
  const title = typeof record.title === 'string' ? record.title.trim() : '';
  if (!title) return 'title is required';
  const item: ImportItem = { title, where };
  if (record.body !== undefined && record.body !== null) {
    if (typeof record.body !== 'string') return 'body must be a string';
    item.body = record.body;
  }
  const labels = readLabels(record.labels);
  if (typeof labels === 'string') return labels;
  if (labels.length) item.labels = labels;
  if (record.priority !== undefined && record.priority !== null) {
    const p = record.priority;
    if (typeof p !== 'number' || !Number.isInteger(p) || p < PRIORITY_MIN || p > PRIORITY_MAX) {
      return `priority must be an integer from ${PRIORITY_MIN} to ${PRIORITY_MAX}`;
    }
    item.priority = p;
  } else {
    const fromLabel = priorityFromLabels(labels);
    if (fromLabel !== undefined) item.priority = fromLabel;
  }
  const blockedBy = record.blockedBy;
  if (blockedBy !== undefined && blockedBy !== null) {
    const refs = typeof blockedBy === 'string' ? [blockedBy] : blockedBy;
    if (!Array.isArray(refs) || refs.some((r) => typeof r !== 'string' || !r.trim())) {
      return 'blockedBy must be a list of issue keys or titles';
    }
    item.blockedBy = refs.map((r: string) => r.trim());
  }
  // The bounds the core holds every issue to, checked for every item before the import
  // writes anything: a file is refused whole, never after some of it was created.
  const valid = check()
    .text('title', item.title, LIMITS.title, true)
    .text('body', item.body, LIMITS.body)
    .labels('labels', item.labels)
    .done();
  return valid.ok ? item : valid.error.message;
}

/** Plain strings, or GitHub's `{ name }` objects. */
function readLabels(value: unknown): string[] | string {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return 'labels must be a list';
  const labels: string[] = [];
  for (const label of value) {
    const name = typeof label === 'string' ? label : (label as { name?: unknown } | null)?.name;
    if (typeof name !== 'string' || !name.trim()) return 'each label must be a string or an object with a name';
    labels.push(name.trim());
  }
  return [...new Set(labels)];
}

/** GitHub has no priority field; the common labels `P1`, `priority: 1`, `priority/1` stand for it. */
function priorityFromLabels(labels: string[]): number | undefined {
  for (const label of labels) {
    const match = /^(?:p|priority\s*[:/ -]\s*)([0-4])$/i.exec(label);
    if (match) return Number(match[1]);
  }
  return undefined;
}
