/**
 * Values a careless or hostile client may put in tool arguments: wrong types, huge and
 * deep ones, odd unicode, NUL bytes, extreme numbers, path and SQL look-alikes. Each is
 * built on demand (some are large) and is plain JSON once sent, as on the wire.
 */

/** Nested `[[[…]]]` (or objects) `depth` levels deep, built without recursion. */
export function deep(depth: number, kind: 'array' | 'object'): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { d: value };
  return value;
}

export const HOSTILE: readonly (readonly [name: string, make: () => unknown])[] = [
  ['null', () => null],
  ['true', () => true],
  ['zero', () => 0],
  ['minus one', () => -1],
  ['minus zero', () => -0],
  ['fraction', () => 1.5],
  ['huge number', () => 1e308],
  ['huge negative', () => -1e308],
  ['beyond safe integers', () => 2 ** 53 + 2],
  ['max int32 plus one', () => 2 ** 31],
  ['empty string', () => ''],
  ['blank', () => '   '],
  ['NUL', () => '\0'],
  ['key with NUL', () => 'BAT-1\0'],
  ['NUL inside text', () => 'before\0after'],
  ['70 KB string', () => 'x'.repeat(70_000)],
  ['2 MB string', () => 'y'.repeat(2_000_000)],
  ['lone high surrogate', () => '\uD800'],
  ['reversed surrogates', () => '\uDFFF\uD800'],
  ['right-to-left override', () => '\u202Eevil.txt'],
  ['byte order mark', () => '\uFEFF'],
  ['zero-width joiners', () => 'a\u200D\u200Db'],
  ['combining marks', () => 'e\u0301\u0301\u0301'],
  ['emoji run', () => '\u{1F511}'.repeat(2_000)],
  ['control characters', () => '\u0001\u0007\u001b[31m\r\n'],
  ['relative path out', () => '../../outside/escape'],
  ['absolute path', () => '/tmp/baton-escape/file'],
  ['sql quote', () => "BAT-1' OR '1'='1"],
  ['sql statement', () => 'BAT-1; DROP TABLE issues;--'],
  ['lower-case key', () => 'bat-1'],
  ['padded key', () => ' BAT-1 '],
  ['key with huge number', () => 'BAT-99999999999999999999999'],
  ['double dash key', () => 'BAT--1'],
  ['other prefix key', () => 'ZZZ-1'],
  ['empty array', () => []],
  ['array of key', () => ['BAT-1']],
  ['100k array', () => Array.from({ length: 100_000 }, () => 'a')],
  ['33 labels', () => Array.from({ length: 33 }, (_, i) => `l${i}`)],
  ['empty object', () => ({})],
  ['small object', () => ({ a: 1 })],
  ['deep array', () => deep(5_000, 'array')],
  ['deep object', () => deep(5_000, 'object')],
  // Deeper than JSON.stringify can walk: whoever serialises it must not fall over.
  ['very deep object', () => deep(200_000, 'object')],
  ['proto key', () => JSON.parse('{"__proto__": {"polluted": true}}')],
  ['constructor key', () => ({ constructor: { prototype: { polluted: true } } })],
  ['object of 100k keys', () => Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))],
];

/**
 * A JSON round trip: what a server actually receives over the wire (undefined fields
 * dropped, -0 made 0). A value too deep to serialise here is plain JSON already and is
 * passed as it is, as a client with another serialiser could send it.
 */
export function asSent<T>(value: T): T {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    return value;
  }
  return text === undefined ? (undefined as T) : (JSON.parse(text) as T);
}

let built: readonly (readonly [name: string, value: unknown])[] | undefined;

/** Every hostile value, built and sent through JSON once: large ones are shared between calls. */
export function hostileValues(): readonly (readonly [name: string, value: unknown])[] {
  built ??= HOSTILE.map(([name, make]) => [name, asSent(make())] as const);
  return built;
}
