// The Postgres store: a library shared by several machines (`--library postgres://…`).
export { isPostgresUrl, openPostgresStore, redactUrl, type PostgresStoreOptions } from "./postgres-store.js";
