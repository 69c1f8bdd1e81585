import type { Result } from '../shared/result.js';
import type { ClaimView, Lease, SessionRecord } from '../shared/types.js';
import { Emitter, type Disposable } from './model/emitter.js';
import { planRenewal, type IsAlive, type RenewalPlan } from './model/renewPlan.js';
import { idleStopDetail, idleStopMessage } from '../shared/rules/renewal.js';

/** The part of Baton a renewer uses. */
export interface RenewTarget {
  readonly leaseSeconds: number;
  readonly config: { readonly idleSeconds: number };
  recordRenewalStopped(input: { stops: { key: string; detail: string }[] }): Promise<Result<void>>;
  listClaims(): Promise<Result<{ claims: ClaimView[] }>>;
  listSessions(): Promise<Result<{ sessions: SessionRecord[] }>>;
  renewLeases(input: { sessions: string[]; renewer?: string }): Promise<Result<{ leases: Lease[] }>>;
}

export interface RenewerDeps {
  /** This window: `vscode:<window id>`. */
  renewer: string;
  /** The target, or null while there is no database to renew in. */
  connect(): Promise<Result<RenewTarget> | null>;
  isAlive: IsAlive;
  log: { info(message: string): void; warn(message: string): void };
  /** How long to wait for a database that does not exist yet. */
  idleMs?: number;
  /** The store's clock, for the idle limit. */
  now?: () => number;
  setTimer?: (fn: () => void, ms: number) => Disposable;
}

export interface RenewalReport extends RenewalPlan {
  renewed: Lease[];
}

const setTimer = (fn: () => void, ms: number): Disposable => {
  const handle = setTimeout(fn, ms);
  return { dispose: () => clearTimeout(handle) };
};

/**
 * Keeps the leases of this window's agents alive: every third of the lease length it
 * renews the leases whose renewer is this window and whose holding server process still
 * runs. A holder that has died is left out at once, so its lease expires on time; a lease
 * recorded with another renewer is never touched (the store filters by renewer as well).
 */
export class Renewer implements Disposable {
  private readonly renewed = new Emitter<RenewalReport>();
  readonly onDidRenew = this.renewed.event;
  private timer: Disposable | undefined;
  private running: Promise<RenewalReport | null> | undefined;
  private disposed = false;
  /** The lease length the current period was set from. */
  private leaseSeconds: number | undefined;
  /** The leases it stopped renewing for idleness (session/key), said and recorded once each. */
  private readonly stoppedIdle = new Set<string>();

  constructor(private readonly deps: RenewerDeps) {}

  start(): void {
    this.schedule(0);
  }

  /** Renews now (and restarts the period); null when there is no database. */
  async renewNow(): Promise<RenewalReport | null> {
    this.timer?.dispose();
    this.running ??= this.tick().finally(() => (this.running = undefined));
    return this.running;
  }

  /**
   * Starts a round now when the lease length is no longer the one the current period was
   * set from (`.baton.json` changed): a shorter lease would otherwise expire before it.
   */
  followLease(seconds: number): void {
    if (this.leaseSeconds !== undefined && seconds !== this.leaseSeconds) void this.renewNow();
  }

  dispose(): void {
    this.disposed = true;
    this.timer?.dispose();
    this.renewed.dispose();
  }

  private schedule(ms: number): void {
    if (this.disposed) return;
    this.timer?.dispose();
    this.timer = (this.deps.setTimer ?? setTimer)(() => void this.renewNow(), ms);
  }

  private async tick(): Promise<RenewalReport | null> {
    let next = this.deps.idleMs ?? 2000;
    try {
      const target = await this.deps.connect();
      if (target === null) return null;
      if (!target.ok) {
        this.deps.log.warn(`Renewer: ${target.error.message}`);
        return null;
      }
      this.leaseSeconds = target.value.leaseSeconds;
      next = (target.value.leaseSeconds * 1000) / 3;
      return await this.renewOnce(target.value);
    } catch (error) {
      this.deps.log.warn(`Renewer: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    } finally {
      this.schedule(next);
    }
  }

  private async renewOnce(target: RenewTarget): Promise<RenewalReport | null> {
    const [claims, sessions] = await Promise.all([target.listClaims(), target.listSessions()]);
    if (!claims.ok) return this.skip(claims.error.message);
    if (!sessions.ok) return this.skip(sessions.error.message);
    const idleSeconds = target.config.idleSeconds;
    const plan = planRenewal(claims.value.claims, sessions.value.sessions, this.deps.renewer, this.deps.isAlive, { now: (this.deps.now ?? Date.now)(), idleSeconds });
    for (const key of plan.lapsing) this.deps.log.info(`Renewer: the agent holding ${key} has stopped; its lease is left to expire.`);
    await this.reportIdle(target, plan, claims.value.claims, idleSeconds);
    if (plan.sessions.length === 0) return { ...plan, renewed: [] };
    const result = await target.renewLeases({ sessions: plan.sessions, renewer: this.deps.renewer });
    if (!result.ok) return this.skip(result.error.message);
    const report = { ...plan, renewed: result.value.leases };
    this.deps.log.info(`Renewer: renewed ${report.renewed.map((l) => l.key).join(', ') || 'nothing'}.`);
    this.renewed.fire(report);
    return report;
  }

  /** Says, and records as `renewal_stopped`, once per lease, that an idle agent's lease is left to expire. */
  private async reportIdle(target: RenewTarget, plan: RenewalPlan, claims: readonly ClaimView[], idleSeconds: number): Promise<void> {
    const fresh = plan.idle.filter(({ key }) => !this.stoppedIdle.has(`${claims.find((c) => c.key === key)?.session}/${key}`));
    if (fresh.length === 0) return;
    for (const { key, idleMs } of fresh) {
      this.stoppedIdle.add(`${claims.find((c) => c.key === key)?.session}/${key}`);
      this.deps.log.info(`Renewer: ${idleStopMessage(key, idleMs)}; its lease is left to expire.`);
    }
    const recorded = await target.recordRenewalStopped({ stops: fresh.map(({ key, idleMs }) => ({ key, detail: idleStopDetail(idleMs, idleSeconds) })) });
    if (!recorded.ok) this.deps.log.warn(`Renewer: ${recorded.error.message}`);
  }

  private skip(message: string): null {
    this.deps.log.warn(`Renewer: ${message}`);
    return null;
  }
}
