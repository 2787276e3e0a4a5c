// The Postgres store: a library shared by several machines (`--library postgres://…`).
export { openPostgresStore, type PostgresStoreOptions } from "./postgres-store.js";
export { isPostgresUrl, redactUrl } from "./postgres-url.js";
