import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_CONFIG_FILES, parseJsonc, SERVER_NAME, SERVERS_KEY } from '../../shared/client-config.js';

/**
 * The workspace file that already gives VS Code a server named `baton` (as `baton init`
 * writes), or null. VS Code would list that server beside the provider's "Baton", and an
 * agent offered two sets of Baton's tools may claim through either: the window then
 * leaves the server to the workspace. A file that cannot be read or parsed gives VS Code
 * no server either.
 */
export function workspaceBatonServer(folder: string): string | null {
  for (const file of CLIENT_CONFIG_FILES) {
    let servers: unknown;
    try {
      servers = (parseJsonc(readFileSync(join(folder, file), 'utf8')) as Record<string, unknown> | null)?.[SERVERS_KEY[file]];
    } catch {
      continue;
    }
    if (servers !== null && typeof servers === 'object' && Object.keys(servers).some((name) => name.toLowerCase() === SERVER_NAME)) return file;
  }
  return null;
}
