import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'jsonc-parser';
import { SERVER_NAME } from '../../shared/client-config.js';

/** The workspace files VS Code takes MCP servers from, and where each keeps them. */
const WORKSPACE_FILES = [
  ['.vscode/mcp.json', 'servers'],
  ['.mcp.json', 'mcpServers'],
] as const;

/**
 * The workspace file that already gives VS Code a server named `baton` (as `baton init`
 * writes), or null. VS Code would list that server beside the provider's "Baton", and an
 * agent offered two sets of Baton's tools may claim through either: the window then
 * leaves the server to the workspace. A file that cannot be read or parsed gives VS Code
 * no server either.
 */
export function workspaceBatonServer(folder: string): string | null {
  for (const [file, key] of WORKSPACE_FILES) {
    let text: string;
    try {
      text = readFileSync(join(folder, file), 'utf8');
    } catch {
      continue;
    }
    const servers: unknown = parse(text, [], { allowTrailingComma: true })?.[key];
    if (servers !== null && typeof servers === 'object' && Object.keys(servers).some((name) => name.toLowerCase() === SERVER_NAME)) return file;
  }
  return null;
}
