import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClientConfigError, writeClientConfig } from '../../shared/client-config.js';

const server = { command: '/usr/bin/node', args: ['/opt/baton/dist/cli.js', 'serve'] };
let repo: string;
const read = (file: string) => JSON.parse(readFileSync(join(repo, file), 'utf8'));

beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'baton-client-config-'));
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('writeClientConfig', () => {
  it('writes a baton entry into .mcp.json and .vscode/mcp.json', () => {
    const result = writeClientConfig(repo, server);
    expect(result.written).toEqual([join(repo, '.mcp.json'), join(repo, '.vscode/mcp.json')]);
    expect(read('.mcp.json')).toEqual({ mcpServers: { baton: { command: '/usr/bin/node', args: ['/opt/baton/dist/cli.js', 'serve'] } } });
    expect(read('.vscode/mcp.json')).toEqual({ servers: { baton: { type: 'stdio', command: '/usr/bin/node', args: ['/opt/baton/dist/cli.js', 'serve'] } } });
  });

  it('passes the environment when given', () => {
    writeClientConfig(repo, { ...server, env: { BATON_DB: '/data/baton.db' } });
    expect(read('.mcp.json').mcpServers.baton.env).toEqual({ BATON_DB: '/data/baton.db' });
    expect(read('.vscode/mcp.json').servers.baton.env).toEqual({ BATON_DB: '/data/baton.db' });
  });

  it('keeps every other server and setting, in their order', () => {
    writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { github: { command: 'gh-mcp' } }, other: true }));
    mkdirSync(join(repo, '.vscode'));
    writeFileSync(join(repo, '.vscode/mcp.json'), JSON.stringify({ inputs: [{ id: 'token' }], servers: { memory: { type: 'stdio', command: 'mem' } } }));
    writeClientConfig(repo, server);
    expect(Object.keys(read('.mcp.json'))).toEqual(['mcpServers', 'other']);
    expect(Object.keys(read('.mcp.json').mcpServers)).toEqual(['github', 'baton']);
    expect(read('.vscode/mcp.json').inputs).toEqual([{ id: 'token' }]);
    expect(read('.vscode/mcp.json').servers.memory).toEqual({ type: 'stdio', command: 'mem' });
  });

  it('changes nothing when run again', () => {
    writeClientConfig(repo, server);
    const before = readFileSync(join(repo, '.mcp.json'), 'utf8');
    const mtime = statSync(join(repo, '.mcp.json')).mtimeMs;
    const again = writeClientConfig(repo, server);
    expect(again).toEqual({ written: [], unchanged: [join(repo, '.mcp.json'), join(repo, '.vscode/mcp.json')] });
    expect(readFileSync(join(repo, '.mcp.json'), 'utf8')).toBe(before);
    expect(statSync(join(repo, '.mcp.json')).mtimeMs).toBe(mtime);
  });

  it('replaces an outdated baton entry in place', () => {
    writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: { baton: { command: 'old' }, z: {} } }));
    writeClientConfig(repo, server, { files: ['.mcp.json'] });
    expect(Object.keys(read('.mcp.json').mcpServers)).toEqual(['baton', 'z']);
    expect(read('.mcp.json').mcpServers.baton.command).toBe('/usr/bin/node');
  });

  it('writes only the files asked for', () => {
    expect(writeClientConfig(repo, server, { files: ['.mcp.json'] }).written).toEqual([join(repo, '.mcp.json')]);
    expect(readdirSync(repo)).toEqual(['.mcp.json']);
  });

  it('refuses malformed JSON with the file named, and writes no file at all', () => {
    writeFileSync(join(repo, '.mcp.json'), '{ "mcpServers": ');
    expect(() => writeClientConfig(repo, server)).toThrow(ClientConfigError);
    expect(() => writeClientConfig(repo, server)).toThrow(/\.mcp\.json: is not valid JSON/);
    expect(readFileSync(join(repo, '.mcp.json'), 'utf8')).toBe('{ "mcpServers": ');
    expect(readdirSync(repo)).toEqual(['.mcp.json']);
  });

  it('refuses to rewrite a file with comments, which would lose them', () => {
    mkdirSync(join(repo, '.vscode'));
    const text = '{\n  // my servers\n  "servers": {},\n}\n';
    writeFileSync(join(repo, '.vscode/mcp.json'), text);
    expect(() => writeClientConfig(repo, server)).toThrow(/comments/);
    expect(readFileSync(join(repo, '.vscode/mcp.json'), 'utf8')).toBe(text);
  });

  it('refuses a file whose servers are not an object, or that is not an object', () => {
    writeFileSync(join(repo, '.mcp.json'), JSON.stringify({ mcpServers: [] }));
    expect(() => writeClientConfig(repo, server)).toThrow(/"mcpServers" must be an object/);
    writeFileSync(join(repo, '.mcp.json'), '[]');
    expect(() => writeClientConfig(repo, server)).toThrow(/must hold a JSON object/);
  });

  it('treats an empty file as an empty configuration', () => {
    writeFileSync(join(repo, '.mcp.json'), '');
    writeClientConfig(repo, server, { files: ['.mcp.json'] });
    expect(read('.mcp.json').mcpServers.baton.command).toBe('/usr/bin/node');
  });

  it('leaves no temporary file behind', () => {
    writeClientConfig(repo, server);
    expect(readdirSync(join(repo, '.vscode'))).toEqual(['mcp.json']);
  });
});
