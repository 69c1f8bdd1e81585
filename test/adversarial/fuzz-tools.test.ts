import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seeded } from '../../bench/generate.js';
import { Baton } from '../../shared/baton.js';
import { ManualClock } from '../../shared/clock.js';
import { DEFAULTS } from '../../shared/config.js';
import { ERROR_CODES } from '../../shared/errors.js';
import { openFileStore } from '../../shared/store/file/index.js';
import type { Store } from '../../shared/store/store.js';
import { type InProcessServer, inProcessServer } from '../helpers/inProcessServer.js';
import { initializeMessages, spawnRawServer, waitFor } from '../helpers/spawnServer.js';
import { asSent, hostileValues } from './hostile.js';
import { committed, dumpTables } from './inspect.js';

/*
 * Every tool, called thousands of times with random and malformed arguments by two
 * agents: every answer is a result or a refusal with a protocol code (a JSON-RPC error
 * with a code only when the arguments are not an object at all); a refusal and a
 * read-only tool change nothing (but for the one `refused` event the contract logs for a
 * late write of a lease the issue once had); a successful call commits at most one
 * operation; and afterwards the database holds exactly what the successful calls said
 * they did.
 */

const CALLS = Number(process.env.BATON_FUZZ_CALLS ?? 2_000);
const SEED = Number(process.env.BATON_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));

/** What the fuzzer knows from earlier answers, to make calls that reach past validation. */
interface Known {
  keys: string[];
  tokens: string[];
  /** Every token each key was given, current or superseded, to reach the fences of that issue. */
  tokensOf: Map<string, string[]>;
  cursors: string[];
}

type Json = Record<string, unknown>;

/** One value for a property of a tool's input schema, chosen to be valid most of the time. */
function plausible(name: string, schema: Json, known: Known, rand: () => number): unknown {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rand() * list.length)];
  const key = () => (known.keys.length > 0 && rand() < 0.9 ? pick(known.keys) : pick(['BAT-999', 'bat-1', 'XYZ-1']));
  if (Array.isArray(schema.enum)) return pick(schema.enum as unknown[]);
  switch (name) {
    case 'key':
    case 'other':
    case 'parent':
      return key();
    case 'blockedBy':
      return rand() < 0.5 ? [] : [key()];
    case 'claimToken':
      return known.tokens.length > 0 && rand() < 0.85 ? pick(known.tokens.slice(-20)) : pick(['bt_nope', 'x', '  ']);
    case 'labels':
      return pick([[], ['ui'], ['ui', 'db']]);
    case 'label':
      return pick(['ui', 'db']);
    case 'requestId':
      return `req-${Math.floor(rand() * 4)}`;
    case 'max':
      return 1 + Math.floor(rand() * 4);
    case 'limit':
      return 1 + Math.floor(rand() * 50);
    case 'priority':
      return Math.floor(rand() * 5);
    case 'cursor':
      return known.cursors.length > 0 && rand() < 0.7 ? pick(known.cursors) : 'bm90IGEgY3Vyc29y';
    case 'state':
      return { step: Math.floor(rand() * 10), files: ['a.ts'] };
    case 'remove':
    case 'ready':
      return rand() < 0.5;
    default:
      return schema.type === 'string' || schema.type === undefined ? `${name} ${Math.floor(rand() * 1000)} ✓` : null;
  }
}

/** The arguments of one call, and whether they are an object at all. */
function argumentsFor(tool: Tool, known: Known, rand: () => number, extra: unknown[]): { args: unknown; mode: string } {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, Json>;
  const required = new Set((tool.inputSchema.required ?? []) as string[]);
  const args: Json = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (required.has(name) || rand() < 0.5) args[name] = plausible(name, schema, known, rand);
  }
  const given = typeof args.key === 'string' ? known.tokensOf.get(args.key) : undefined;
  if ('claimToken' in args && given && rand() < 0.4) args.claimToken = given[Math.floor(rand() * given.length)];
  const names = Object.keys(properties);
  const values = hostileValues();
  const hostile = () => (rand() < 0.8 ? values[Math.floor(rand() * values.length)][1] : extra[Math.floor(rand() * extra.length)]);
  const r = rand();
  if (r < 0.5 || names.length === 0) return { args, mode: 'plausible' };
  if (r < 0.78) {
    const name = names[Math.floor(rand() * names.length)];
    args[name] = hostile();
    if (rand() < 0.3) args[names[Math.floor(rand() * names.length)]] = hostile();
    return { args, mode: `hostile ${name}` };
  }
  if (r < 0.86 && required.size > 0) {
    delete args[[...required][Math.floor(rand() * required.size)]];
    return { args, mode: 'missing field' };
  }
  if (r < 0.93) {
    args[rand() < 0.5 ? 'unexpected' : 'claim_token'] = hostile();
    return { args, mode: 'unknown field' };
  }
  return { args: hostile(), mode: 'whole arguments hostile' };
}

/** Every table but the activity log, and the log itself, apart. */
async function splitDump(store: Store): Promise<{ rest: Record<string, unknown[]>; events: Json[] }> {
  const { events, ...rest } = await dumpTables(store);
  return { rest, events: events as Json[] };
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the database should hold, from the successful answers alone. */
interface Expected {
  issues: Map<string, string>;
  checkpoints: { key: string; note: string; state: unknown }[];
  comments: number;
}

function learn(known: Known, expected: Expected, tool: string, args: Json, value: Json): void {
  const leases = [value.lease, ...(Array.isArray(value.items) ? value.items.map((i: Json) => i.lease) : [])];
  for (const lease of leases) {
    if (!isPlainObject(lease) || typeof lease.claimToken !== 'string') continue;
    known.tokens.push(lease.claimToken);
    const key = lease.key as string;
    known.tokensOf.set(key, [...(known.tokensOf.get(key) ?? []), lease.claimToken]);
  }
  if (typeof value.nextCursor === 'string') known.cursors.push(value.nextCursor);
  const issue = value.issue as Json | undefined;
  if (tool === 'create_issue' && issue) {
    known.keys.push(issue.key as string);
    expected.issues.set(issue.key as string, issue.title as string);
  }
  if (tool === 'update_issue' && issue) expected.issues.set(issue.key as string, issue.title as string);
  if (tool === 'checkpoint') {
    const cp = value.checkpoint as Json;
    expected.checkpoints.push({ key: (value.lease as Json).key as string, note: cp.note as string, state: cp.state });
  }
  if (tool === 'comment' || tool === 'submit_for_review') expected.comments += 1;
  if (tool === 'done' && args.summary !== undefined) expected.comments += 1;
  if (tool === 'review' && (args.verdict === 'changes' || args.note !== undefined)) expected.comments += 1;
}

describe('fuzzing every tool in process', () => {
  let dir: string;
  let store: Store;
  let witness: Store;
  let servers: InProcessServer[];

  beforeAll(async () => {
    // Durability is not what this test is about: a memory file system keeps thousands of commits quick.
    dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'baton-fuzz-'));
    const path = join(dir, 'baton.db');
    const clock = new ManualClock();
    store = await openFileStore({ path, clock, compactAfterBytes: 256 * 1024 });
    // A second store on the file, as another process: it sees each commit's sequence number.
    witness = await openFileStore({ path, clock });
    const core = (agent: string) =>
      new Baton({ store, caller: { agent, session: `${agent}-1`, renewer: null, worktree: null }, config: DEFAULTS, git: async () => null });
    servers = [await inProcessServer(core('fuzz-a'), 'fuzz-a'), await inProcessServer(core('fuzz-b'), 'fuzz-b')];
  });

  afterAll(async () => {
    for (const s of servers) await s.close();
    await witness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`answers every hostile value in every field of every tool, then ${CALLS} random calls, with a result or a coded refusal, and keeps exactly the successful changes`, async () => {
    const rand = seeded(SEED);
    const extra = fc.sample(fc.jsonValue({ maxDepth: 3 }), { numRuns: 200, seed: SEED });
    const clients: Client[] = servers.map((s) => s.client);
    const tools = (await clients[0].listTools()).tools;
    await clients[1].listTools();
    const readOnly = new Set(tools.filter((t) => t.annotations?.readOnlyHint).map((t) => t.name));
    const known: Known = { keys: [], tokens: [], tokensOf: new Map(), cursors: [] };
    const expected: Expected = { issues: new Map(), checkpoints: [], comments: 0 };
    const tally = new Map<string, number>();
    const count = (what: string) => tally.set(what, (tally.get(what) ?? 0) + 1);

    // Issues first, so that most later calls name real keys and tokens; then the systematic
    // sweep (each hostile value in each field, the other fields plausible); then random calls.
    const plan: (() => { tool: Tool; args: unknown; mode: string })[] = [];
    const named = (name: string) => tools.find((t) => t.name === name)!;
    for (let n = 0; n < 12; n++) {
      plan.push(() => (n % 3 === 2 ? { tool: named('next_issue'), args: {}, mode: 'seed' } : { tool: named('create_issue'), args: { title: `seed ${n}`, labels: n % 2 ? ['ui'] : [] }, mode: 'seed' }));
    }
    for (const tool of tools) {
      for (const field of Object.keys(tool.inputSchema.properties ?? {})) {
        for (const [name, value] of hostileValues()) {
          plan.push(() => {
            const { args } = argumentsFor(tool, known, () => 0.25, extra);
            return { tool, args: { ...(args as Json), [field]: value }, mode: `${field} = ${name}` };
          });
        }
      }
    }
    for (let n = 0; n < CALLS; n++) {
      plan.push(() => {
        const tool = tools[Math.floor(rand() * tools.length)];
        return { tool, ...argumentsFor(tool, known, rand, extra) };
      });
    }

    // The tables as of the last commit, to tell what a committing refusal changed.
    let lastDump = await splitDump(witness);
    for (const [n, next] of plan.entries()) {
      // Arguments are built from values already sent through JSON once; only the small rest needs it.
      const { tool, args, mode } = next();
      const sent = isPlainObject(args) ? Object.fromEntries(Object.entries(args).filter(([, v]) => v !== undefined)) : args;
      const what = `call ${n} (seed ${SEED}) ${tool.name} [${mode}]`;
      const before = await committed(witness);
      let result;
      try {
        result = await clients[n % 2].callTool({ name: tool.name, arguments: sent as Json });
      } catch (error) {
        // Only arguments that are not an object may be turned away before the tool runs.
        expect(isPlainObject(sent), `${what}: threw ${String(error)}`).toBe(false);
        expect(error, what).toBeInstanceOf(McpError);
        expect(typeof (error as McpError).code, what).toBe('number');
        expect(await committed(witness), `${what}: a protocol error changed data`).toBe(before);
        count('protocol error');
        continue;
      }
      const after = await committed(witness);
      expect(result.content, what).toEqual([expect.objectContaining({ type: 'text' })]);
      const sc = result.structuredContent as Json | undefined;
      expect(isPlainObject(sc), `${what}: no structuredContent in ${JSON.stringify(result).slice(0, 300)}`).toBe(true);
      if (result.isError) {
        const error = sc!.error as Json;
        expect(ERROR_CODES, `${what}: ${JSON.stringify(error)}`).toContain(error?.code);
        expect(typeof error.message, what).toBe('string');
        if (after !== before) {
          // Only a late write with a token once issued for the issue is logged, in the refusing commit.
          expect(error.code, `${what}: a refusal changed data`).toBe('CLAIM_LOST');
          expect(error.reason, what).not.toBe('never issued');
          expect(after - before, `${what}: one refusal, one commit`).toBe(1);
          const now = await splitDump(witness);
          expect(now.rest, `${what}: a refusal changed more than the log`).toEqual(lastDump.rest);
          expect(now.events.slice(0, -1), what).toEqual(lastDump.events);
          expect(now.events.at(-1), what).toMatchObject({ key: (sent as Json).key, type: 'refused', detail: expect.stringMatching(/^late \S+ with fence \d+ refused/) });
          count('refused and logged');
        }
        count(error.code as string);
      } else {
        expect(sc!.error, what).toBeUndefined();
        expect(after - before, `${what}: one call, at most one commit`).toBeLessThanOrEqual(readOnly.has(tool.name) ? 0 : 1);
        learn(known, expected, tool.name, sent as Json, sc!);
        count('ok');
      }
      if (after !== before) lastDump = await splitDump(witness);
    }
    console.error(`fuzz (seed ${SEED}): ${plan.length} calls, ${JSON.stringify(Object.fromEntries(tally))}`);
    expect(tally.get('ok') ?? 0).toBeGreaterThan(CALLS / 5);
    expect(tally.get('INVALID_INPUT') ?? 0).toBeGreaterThan(CALLS / 10);
    expect(tally.get('refused and logged') ?? 0).toBeGreaterThan(CALLS / 100);

    // Still serving after all of it.
    expect((await clients[0].listTools()).tools).toHaveLength(tools.length);

    // The database holds exactly what the successful answers said, and a fresh reader agrees.
    const held = await witness.read(async (tx) => ({
      issues: await tx.all<{ key: string; title: string }>('SELECT key, title FROM issues ORDER BY id'),
      checkpoints: await tx.all<{ key: string; note: string; state: string | null }>(
        'SELECT i.key, c.note, c.state FROM checkpoints c JOIN issues i ON i.id = c.issue_id ORDER BY c.id',
      ),
      comments: (await tx.get<{ n: number }>('SELECT count(*) AS n FROM comments'))!.n,
    }));
    expect(new Map(held.issues.map((i) => [i.key, i.title]))).toEqual(expected.issues);
    expect(held.checkpoints.map((c) => ({ key: c.key, note: c.note, state: c.state === null ? null : JSON.parse(c.state) }))).toEqual(expected.checkpoints);
    expect(held.comments).toBe(expected.comments);
    const path = join(dir, 'baton.db');
    const fresh = await openFileStore({ path });
    expect(await dumpTables(fresh)).toEqual(await dumpTables(store));
    await fresh.close();
  }, 150_000);
});

describe('fuzzing the stdio server', () => {
  it('answers garbage lines, malformed requests and hostile calls, and never exits until stdin closes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'baton-fuzz-stdio-'));
    const server = spawnRawServer({ cwd: dir, args: ['--db', join(dir, 'baton.db')], env: { BATON_AGENT: 'fuzz-stdio', HOME: dir } });
    try {
      // Lines that are not JSON-RPC at all, before and after the session opens.
      const garbage = ['not json', '{', '[]', '{"jsonrpc":"2.0"}', '\0\0\0', `${'['.repeat(100_000)}${']'.repeat(100_000)}`, 'z'.repeat(3_000_000)];
      for (const line of garbage) server.child.stdin.write(`${line}\n`);
      for (const message of initializeMessages('fuzz-stdio')) server.send(message);
      await waitFor(() => server.messages.some((m) => (m as Json).id === 0), 10_000, 'initialize answer');
      for (const line of garbage) server.child.stdin.write(`${line}\n`);

      const rand = seeded(SEED + 1);
      const known: Known = { keys: [], tokens: [], tokensOf: new Map(), cursors: [] };
      const listed = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      server.send(listed);
      await waitFor(() => server.messages.some((m) => (m as Json).id === 1), 10_000, 'tools/list answer');
      const tools = ((server.messages.find((m) => (m as Json).id === 1) as Json).result as { tools: Tool[] }).tools;
      const calls: { id: number; tool: string; args: unknown }[] = [];
      let id = 10;
      for (let i = 0; i < 3; i++) calls.push({ id: id++, tool: 'create_issue', args: { title: `stdio ${i}` } });
      known.keys.push('BAT-1', 'BAT-2');
      calls.push({ id: id++, tool: 'next_issue', args: {} });
      for (let n = 0; n < 400; n++) {
        const tool = tools[Math.floor(rand() * tools.length)];
        calls.push({ id: id++, tool: tool.name, args: argumentsFor(tool, known, rand, [null]).args });
      }
      calls.push({ id: id++, tool: 'no_such_tool', args: {} });
      for (const call of calls) {
        const message = { jsonrpc: '2.0', id: call.id, method: 'tools/call', params: { name: call.tool, arguments: asSent(call.args) } };
        try {
          server.child.stdin.write(`${JSON.stringify(message)}\n`);
        } catch {
          // Too deep for this side to serialise; the hand-written deep call below covers it.
          call.args = 'too deep to send';
          server.send({ ...message, params: { name: call.tool, arguments: { too: 'deep' } } });
        }
      }
      // A checkpoint state deeper than a JSON serialiser can walk, written out by hand.
      const depth = 200_000;
      server.child.stdin.write(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"checkpoint","arguments":{"key":"BAT-1","claimToken":"x","note":"n","state":${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}}}}\n`,
      );
      calls.push({ id, tool: 'checkpoint (very deep state)', args: null });
      // Requests that are not tool calls, and a call whose arguments are not an object.
      server.send({ jsonrpc: '2.0', id: ++id, method: 'no/such/method' });
      server.send({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'get_issue', arguments: [1, 2] } });
      server.send({ jsonrpc: '2.0', id: ++id, method: 'resources/read', params: { uri: 'baton://issue/../../etc/passwd' } });
      // Not a JSON-RPC request at all (params must be structured): the SDK's transport drops
      // it without an answer, as it drops unparsable lines; the server must simply go on.
      server.send({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: 'nope' });
      const dropped = id;
      server.send({ jsonrpc: '2.0', id: ++id, method: 'tools/list' });
      const last = id;
      // Answers come in the order calls finish, not the order they were sent: a tools/list
      // overtakes a call still validating a deep argument. Wait for every one of them.
      const unanswered = () => {
        const seen = new Set(server.messages.map((m) => (m as Json).id));
        const extras = Array.from({ length: 6 }, (_, i) => last - 5 + i).filter((extraId) => extraId !== dropped);
        return [...calls.map((c) => c.id), ...extras].filter((callId) => !seen.has(callId));
      };
      await waitFor(() => unanswered().length === 0, 60_000, 'an answer to every call').catch(() => {
        // The assertions below name the calls left without one.
      });

      const byId = new Map(server.messages.filter((m) => typeof (m as Json).id === 'number').map((m) => [(m as Json).id as number, m as Json]));
      for (const call of calls) {
        const answer = byId.get(call.id);
        const what = `stdio call ${call.id} ${call.tool} ${JSON.stringify(call.args)?.slice(0, 120)}`;
        expect(answer, `${what}: no answer`).toBeDefined();
        if (answer!.error) {
          expect(typeof (answer!.error as Json).code, what).toBe('number');
          continue;
        }
        const result = answer!.result as { isError?: boolean; structuredContent?: Json; content: { text: string }[] };
        if (call.tool === 'no_such_tool') {
          // Not a Baton tool: the SDK's own refusal, which names the JSON-RPC code in its text.
          expect(result, what).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('-32602') }] });
          continue;
        }
        expect(isPlainObject(result.structuredContent), `${what}: ${JSON.stringify(result).slice(0, 300)}`).toBe(true);
        if (result.isError) expect(ERROR_CODES, what).toContain((result.structuredContent!.error as Json).code);
      }
      for (let extraId = last - 5; extraId <= last; extraId++) {
        if (extraId !== dropped) expect(byId.get(extraId), `answer ${extraId}`).toBeDefined();
      }
      expect(server.child.exitCode, server.stderr()).toBeNull();
      server.child.stdin.end();
      expect(await server.exit).toEqual({ code: 0, signal: null });
    } finally {
      if (server.child.exitCode === null) server.child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

