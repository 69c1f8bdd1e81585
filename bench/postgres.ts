import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStore } from '../shared/store/postgres/index.js';
import { generateIssues } from './generate.js';

/**
 * The PostgreSQL column (issue #7): a database per dataset, generated once through the
 * store, and a copy of it per run (CREATE DATABASE … TEMPLATE). Every database made here
 * carries this benchmark's own random tag and is dropped by `dropAll`.
 */
export class PostgresDatasets {
  private readonly tag = randomBytes(4).toString('hex');
  private readonly made: string[] = [];
  private readonly templates = new Map<number, string>();

  constructor(private readonly adminUrl: string) {}

  /** The server's durability settings: a cluster without fsync is not comparable. */
  async settings(): Promise<{ fsync: string; synchronousCommit: string; version: string }> {
    return this.admin(async (c) => ({
      fsync: (await c.query('SHOW fsync')).rows[0].fsync,
      synchronousCommit: (await c.query('SHOW synchronous_commit')).rows[0].synchronous_commit,
      version: (await c.query('SHOW server_version')).rows[0].server_version,
    }));
  }

  /** Generates the dataset of `issues` issues once; answers how long that took. */
  async generate(issues: number, progress: (line: string) => void): Promise<number> {
    const name = await this.create(`baton_bench_${this.tag}_gen_${issues}`);
    const store = await openPostgresStore({ url: this.urlOf(name) });
    try {
      const { ms } = await generateIssues(store, issues, { seed: issues, onProgress: (n) => progress(`generating ${issues} issues on PostgreSQL: ${n}`) });
      // Statistics, as autovacuum would gather on a database in use (copies inherit them).
      // Without them the dispatch query joins every blocks relation, hundreds of times slower.
      await this.connected(this.urlOf(name), (c) => c.query('ANALYZE'));
      this.templates.set(issues, name);
      return ms;
    } finally {
      await store.close();
    }
  }

  /** A fresh copy of a generated dataset; answers its URL. */
  async copy(issues: number, run: number): Promise<string> {
    const template = this.templates.get(issues);
    if (!template) throw new Error(`no PostgreSQL dataset of ${issues} issues`);
    return this.urlOf(await this.create(`baton_bench_${this.tag}_run_${run}`, template));
  }

  async dropAll(): Promise<void> {
    await this.admin(async (c) => {
      for (const name of this.made.reverse()) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  }

  private async create(name: string, template?: string): Promise<string> {
    await this.admin((c) => c.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`));
    this.made.push(name);
    return name;
  }

  private urlOf(name: string): string {
    const url = new URL(this.adminUrl);
    url.pathname = `/${name}`;
    return url.toString();
  }

  private admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
    return this.connected(this.adminUrl, fn);
  }

  private async connected<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await fn(client);
    } finally {
      await client.end();
    }
  }
}
