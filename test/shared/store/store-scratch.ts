import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { type FileStore, openFileStore } from '../../../shared/store/file/index.js';
import type { Store } from '../../../shared/store/store.js';
import { scratchDir } from './helpers.js';

/**
 * For every test of the file: a fresh scratch folder, the database path `file` inside
 * it, and `open` for file stores on that path, all closed and removed after the test.
 */
export function storeScratch(label: string, ...file: string[]) {
  let scratch: ReturnType<typeof scratchDir> | undefined;
  const opened: Store[] = [];
  beforeEach(() => {
    scratch = scratchDir(label);
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    scratch?.remove();
  });
  const dir = () => {
    if (!scratch) throw new Error('storeScratch is used outside a test');
    return scratch.dir;
  };
  return {
    get dir(): string {
      return dir();
    },
    get path(): string {
      return join(dir(), ...file);
    },
    async open(options: Partial<Parameters<typeof openFileStore>[0]> = {}): Promise<FileStore> {
      const store = await openFileStore({ path: join(dir(), ...file), ...options });
      opened.push(store);
      return store;
    },
  };
}
