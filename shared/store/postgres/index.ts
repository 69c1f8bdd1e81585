/**
 * The PostgreSQL store (`BATON_DATABASE_URL=postgres://...`): the same tables and rules
 * as the file store, shared by every machine of a team, with the database clock for leases
 * and `FOR UPDATE SKIP LOCKED` for dispatch.
 */
export { openPostgresStore, type PostgresStoreOptions } from './open.js';
export { redactUrl } from './location.js';
export { POSTGRES_SCHEMA_VERSION } from './schema.js';
