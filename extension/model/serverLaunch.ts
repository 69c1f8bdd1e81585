import { join } from 'node:path';
import { SERVER_ENV } from '../../shared/client-config.js';

/** How this window starts Baton's bundled server. */
export interface ServerLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * VS Code's own runtime runs the bundled server, so users need no Node: under Electron
 * `ELECTRON_RUN_AS_NODE=1` makes the binary behave as Node, and where the extension host
 * already is Node (a VS Code server) the variable is ignored.
 */
export function serverLaunch(options: { extensionPath: string; execPath: string; renewer?: string; db?: string }): ServerLaunch {
  return {
    command: options.execPath,
    args: [join(options.extensionPath, 'dist', 'cli.js'), 'serve'],
    env: {
      ...SERVER_ENV,
      ELECTRON_RUN_AS_NODE: '1',
      ...(options.renewer ? { BATON_RENEWER: options.renewer } : {}),
      ...(options.db ? { BATON_DB: options.db } : {}),
    },
  };
}
