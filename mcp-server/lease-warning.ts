import type { Lease } from '../shared/types.js';

/** A renewal interval an agent can follow: a third of the lease, in words. */
export function renewEvery(leaseSeconds: number): string {
  const seconds = leaseSeconds / 3;
  if (seconds >= 120) return `${Math.floor(seconds / 60)} minutes`;
  const n = seconds < 10 ? Number(seconds.toFixed(1)) : Math.floor(seconds);
  return `${n} ${n === 1 ? 'second' : 'seconds'}`;
}

/**
 * Returns a function told of every lease this session claims or renews. The first time it
 * sees one that no renewer tracks, it writes one line (to stderr, by the caller's `write`)
 * saying how often to heartbeat. Never a token: only the key and the timing.
 */
export function untrackedLeaseWarning(leaseSeconds: number, write: (line: string) => void): (leases: readonly Lease[]) => void {
  const warned = new Set<string>();
  return (leases) => {
    for (const lease of leases) {
      if (lease.renewer !== null || warned.has(lease.key)) continue;
      warned.add(lease.key);
      write(
        `baton: no renewer is recorded on your lease of ${lease.key} (BATON_RENEWER is unset): unless \`baton watchdog\` runs beside you, call heartbeat or checkpoint at least every ${renewEvery(leaseSeconds)}; the lease ends ${leaseSeconds} s after the last one.`,
      );
    }
  };
}
