import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../shared/config.js';
import { ERROR_CODES } from '../../shared/errors.js';
import { buildProgram } from '../../mcp-server/cli/program.js';
import { openHarness } from '../helpers/core.js';
import { inProcessServer } from '../helpers/inProcessServer.js';
import {
  codeWords,
  environmentVariablesIn,
  nameIn,
  propertyNames,
  readProtocol,
  ROOT,
  rowsOf,
  section,
  sourceFiles,
} from './protocol-doc.js';

/*
 * docs/protocol.md is the contract; these checks hold it to the code both ways, so a
 * name added, renamed or removed on one side only fails here. Tables are found by their
 * first header cell (`tool`, `code`, `command`, `variable`) anywhere in the document, so
 * a section added later may bring its own.
 */

const doc = readProtocol();
const inDoc = codeWords(doc);

/** The tools/list answer of a server in this process. */
async function listTools(): Promise<Tool[]> {
  const h = await openHarness();
  const server = await inProcessServer(h.session('protocol-doc'));
  try {
    return (await server.client.listTools()).tools;
  } finally {
    await server.close();
    await h.close();
  }
}

/** The rows of every tool table, by tool: [input cell, result cell]. */
function toolRows(): Map<string, { input: string; result: string }> {
  const rows = new Map<string, { input: string; result: string }>();
  for (const [name, input, result] of rowsOf(doc, 'tool')) rows.set(nameIn(name), { input, result });
  return rows;
}

/** Fields any tool's answer may carry, which section 5 describes once for all of them. */
const EVERY_ANSWER = ['error', 'notices'];
const section5 = doc.slice(doc.indexOf('## 5. Tools'), doc.indexOf('## 6. Error codes'));

describe('docs/protocol.md against the MCP tools', () => {
  let tools: Tool[];
  beforeAll(async () => {
    tools = await listTools();
  });

  it('names every tool the server lists, and no tool the server lacks', async () => {
    const listed = tools.map((tool) => tool.name).sort();
    expect([...toolRows().keys()].sort()).toEqual(listed);
  });

  it("names each tool's input fields in that tool's row", async () => {
    const rows = toolRows();
    for (const tool of tools) {
      const row = rows.get(tool.name);
      expect(row, tool.name).toBeDefined();
      const written = codeWords(row!.input);
      for (const field of Object.keys(tool.inputSchema.properties ?? {})) {
        expect(written.has(field), `${tool.name} input ${field}`).toBe(true);
      }
    }
  });

  it("names each tool's answer fields in that tool's row, and every nested field in the document", async () => {
    for (const field of EVERY_ANSWER) expect(section5, field).toMatch(new RegExp(`\\b${field}\\b`));
    const rows = toolRows();
    for (const tool of tools) {
      const top = Object.keys((tool.outputSchema?.properties ?? {}) as Record<string, unknown>);
      expect(top, tool.name).toContain('error');
      const written = codeWords(rows.get(tool.name)!.result);
      // `error` (every tool's refusal) and `notices` (a lost lease, told with any answer) are
      // written once for all tools, in section 5.
      for (const field of top.filter((f) => !EVERY_ANSWER.includes(f))) {
        expect(written.has(field), `${tool.name} result ${field}`).toBe(true);
      }
      for (const field of propertyNames(tool.outputSchema)) {
        expect(inDoc.has(field), `${tool.name} output field ${field}`).toBe(true);
      }
    }
  });
});

describe('docs/protocol.md against the error codes', () => {
  it('lists exactly the codes of shared/errors.ts in its error-code tables', () => {
    const listed = rowsOf(doc, 'code').map(([code]) => nameIn(code));
    expect([...listed].sort()).toEqual([...ERROR_CODES].sort());
  });
});

describe('docs/protocol.md against the command line', () => {
  const sink = { write: () => true };
  const program = buildProgram({ env: {}, cwd: ROOT, stdout: sink, stderr: sink, cliPath: 'cli.js' }, '0.0.0');
  const reference = section(doc, 9);
  const rows = new Map(rowsOf(doc, 'command').map(([command, options]) => [nameIn(command).split(' ')[1], options]));

  it('has a row for every command of program.ts, and none for a command it lacks', () => {
    const commands = program.commands.map((command) => command.name()).sort();
    expect([...rows.keys()].sort()).toEqual(commands);
  });

  it("names each command's options in its row (--json and --db once for all)", () => {
    for (const command of program.commands) {
      for (const option of command.options) {
        const where = option.long === '--json' || (option.long === '--db' && command.name() !== 'serve') ? reference : (rows.get(command.name()) ?? '');
        expect(where, `baton ${command.name()} ${option.long}`).toContain(`${option.long}`);
      }
    }
  });
});

describe('docs/protocol.md against the environment', () => {
  const read = environmentVariablesIn(sourceFiles('shared', 'mcp-server', 'extension'));
  const written = new Set([...doc.matchAll(/\bBATON_[A-Z0-9_]+/g)].map((match) => match[0]));

  it('documents every BATON_* variable the code reads', () => {
    expect(read.size).toBeGreaterThan(0);
    for (const name of read) expect(written.has(name), name).toBe(true);
  });

  it('documents no BATON_* variable the code does not read', () => {
    for (const name of written) expect(read.has(name), name).toBe(true);
  });

  it('gives every variable a row of a settings table, and every .baton.json field one', () => {
    const variables = new Set(rowsOf(doc, 'variable').map(([name]) => nameIn(name)));
    for (const name of read) expect(variables.has(name), name).toBe(true);
    const fields = new Set(rowsOf(doc, 'field').map(([name]) => nameIn(name)));
    for (const field of Object.keys(DEFAULTS)) expect(fields.has(field), field).toBe(true);
  });
});
