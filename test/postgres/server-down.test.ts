import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../shared/errors.js';
import { openPostgresStore } from '../../shared/store/postgres/index.js';

/** A loopback port that nothing listens on (taken from the system, then let go). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Needs no PostgreSQL: the point is that there is none.
describe('PostgreSQL store: no server', () => {
  it('gives up with STORE_UNAVAILABLE within a few seconds, naming the URL without its password', async () => {
    const port = await closedPort();
    const started = Date.now();
    const error = await openPostgresStore({ url: `postgres://baton:s3cret@127.0.0.1:${port}/baton` }).catch((err: unknown) => err);
    const elapsed = Date.now() - started;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    const unavailable = error as StoreUnavailableError;
    expect(unavailable.code).toBe('STORE_UNAVAILABLE');
    expect(unavailable.path).toBe(`postgres://baton:***@127.0.0.1:${port}/baton`);
    expect(unavailable.reason).toMatch(/cannot reach the server \(4 tries over .* s\): .*ECONNREFUSED/);
    expect(unavailable.message).not.toContain('s3cret');
    // It did try again (backoff), and stopped within the budget.
    expect(elapsed).toBeGreaterThan(500);
    expect(elapsed).toBeLessThan(6_000);
  });

  it('calls a URL that cannot be parsed unavailable, without echoing it', async () => {
    const error = await openPostgresStore({ url: 'postgres://baton:s3cret@[not-a-host/baton' }).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).not.toContain('s3cret');
  });
});
