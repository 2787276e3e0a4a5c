// Store implementations behind the Store seam of src/spec/store.ts; SQLite is the default.
export { openSqliteStore, type SqliteStoreOptions } from "./sqlite/sqlite-store.js";
export { isStore } from "./compose-store.js";
