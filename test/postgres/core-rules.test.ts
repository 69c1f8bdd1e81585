import { afterAll, afterEach, describe, it, vi } from 'vitest';
import { ADMIN_URL } from './test-database.js';

// The core tests of the rules (test/shared), run once more with their harness over the
// PostgreSQL store: the same behaviours, through PostgreSQL's SQL, locks and types.
vi.mock('../helpers/core.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../helpers/core.js')>();
  const { postgresHarness } = await import('./postgres-harness.js');
  return { ...actual, harness: postgresHarness };
});

if (ADMIN_URL) {
  const { closeHarnessStores, dropHarnessDatabase } = await import('./postgres-harness.js');
  afterEach(closeHarnessStores);
  afterAll(dropHarnessDatabase);
  await import('../shared/leases.test.js');
  await import('../shared/dispatch.test.js');
  await import('../shared/tracking.test.js');
  await import('../shared/push-guard.test.js');
  await import('../shared/overlaps.test.js');
  await import('../shared/liveness.test.js');
} else {
  describe.skip('core rules on PostgreSQL', () => {
    it('needs BATON_TEST_DATABASE_URL', () => undefined);
  });
}
