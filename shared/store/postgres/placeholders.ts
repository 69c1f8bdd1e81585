/** A statement rewritten for PostgreSQL: `$1..$n` in place of `?`, and how many there are. */
export interface NumberedSql {
  readonly text: string;
  readonly count: number;
}

// The rules send the same few dozen statements over and over; rewriting each once is enough.
// Bounded so that a caller building statements on the fly cannot grow it without limit.
const CACHE_LIMIT = 512;
const cache = new Map<string, NumberedSql>();

/**
 * Rewrites the portable `?` placeholders of `sql` as PostgreSQL's `$1..$n`, in order.
 * A `?` inside a string literal ('…', E'…'), a quoted identifier ("…"), a dollar-quoted
 * string ($tag$…$tag$) or a comment is text, not a placeholder, and is left alone.
 */
export function toNumbered(sql: string): NumberedSql {
  const hit = cache.get(sql);
  if (hit) return hit;
  const converted = convert(sql);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(sql, converted);
  return converted;
}

function convert(sql: string): NumberedSql {
  let out = '';
  let count = 0;
  let i = 0;
  const n = sql.length;
  while (i < n) {
    const c = sql[i];
    const next = sql[i + 1];
    let end: number;
    if (c === '?') {
      out += `$${++count}`;
      i++;
      continue;
    } else if (c === "'") {
      end = skipQuoted(sql, i, "'", isEscapeString(sql, i));
    } else if (c === '"') {
      end = skipQuoted(sql, i, '"', false);
    } else if (c === '-' && next === '-') {
      const newline = sql.indexOf('\n', i);
      end = newline < 0 ? n : newline + 1;
    } else if (c === '/' && next === '*') {
      end = skipBlockComment(sql, i);
    } else if (c === '$' && !isIdentChar(sql[i - 1])) {
      end = skipDollarQuoted(sql, i);
    } else {
      end = i + 1;
    }
    out += sql.slice(i, end);
    i = end;
  }
  return { text: out, count };
}

/** An `E'…'` string, where a backslash escapes the next character (a `\'` does not end it). */
function isEscapeString(sql: string, quote: number): boolean {
  const before = sql[quote - 1];
  return (before === 'E' || before === 'e') && !isIdentChar(sql[quote - 2]);
}

/** The index just past the closing quote; a doubled quote is an escaped one. Unterminated runs to the end. */
function skipQuoted(sql: string, start: number, quote: string, backslashEscapes: boolean): number {
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') {
      i += 2;
    } else if (c === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else {
      i++;
    }
  }
  return sql.length;
}

/** PostgreSQL block comments nest, unlike C's. */
function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql[i] === '/' && sql[i + 1] === '*') {
      depth++;
      i += 2;
    } else if (sql[i] === '*' && sql[i + 1] === '/') {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else {
      i++;
    }
  }
  return sql.length;
}

/** `$tag$…$tag$` (the tag may be empty); a `$` that opens no such string is an ordinary character. */
function skipDollarQuoted(sql: string, start: number): number {
  const open = /^\$([A-Za-z_][A-Za-z0-9_]*)?\$/.exec(sql.slice(start));
  if (!open) return start + 1;
  const close = sql.indexOf(open[0], start + open[0].length);
  return close < 0 ? sql.length : close + open[0].length;
}

function isIdentChar(c: string | undefined): boolean {
  return c !== undefined && /[A-Za-z0-9_$]/.test(c);
}
