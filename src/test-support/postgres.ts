// Throwaway PostgreSQL 15 clusters with pgvector for the tests of the Postgres store: each one lives in its own temp
// folder, listens on a free port on 127.0.0.1 only, trusts every local connection and is deleted when stopped. Debian's
// default cluster (port 5432) is never used. Tests skip with `needsPostgres` where PostgreSQL or pgvector is missing.
import { execFile, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port.js";

const run = promisify(execFile);

/** Where Debian's postgresql-15 package puts the server programs (and psql). */
export const postgresBinDir = "/usr/lib/postgresql/15/bin";
const vectorControl = "/usr/share/postgresql/15/extension/vector.control";

// initdb and postgres refuse to run as root: as root (CI), the cluster belongs to the `postgres` user the package creates,
// and the programs run through runuser.
const asRoot = process.getuid?.() === 0;
const runuser = "/usr/sbin/runuser";
const postgresUser = asRoot ? systemUser("postgres") : undefined;

// From /etc/passwd rather than `id`, so the answer does not depend on PATH; Debian's package adds the user there.
function systemUser(name: string): { uid: number; gid: number } | undefined {
  const passwd = existsSync("/etc/passwd") ? readFileSync("/etc/passwd", "utf8") : "";
  const fields = passwd.split("\n").map((line) => line.split(":")).find((entry) => entry[0] === name);
  return fields ? { uid: Number(fields[2]), gid: Number(fields[3]) } : undefined;
}

function missingReason(): string | false {
  if (!["initdb", "pg_ctl", "postgres"].every((program) => existsSync(join(postgresBinDir, program)))) {
    return `PostgreSQL 15 is not installed (apt-get install postgresql-15 postgresql-server-dev-15; ${postgresBinDir} is missing)`;
  }
  if (asRoot && !(postgresUser && existsSync(runuser))) {
    return `running as root, and there is no \`postgres\` user (or no ${runuser}) to run PostgreSQL as`;
  }
  if (!existsSync(vectorControl)) return "pgvector is not installed for PostgreSQL 15 (`npm test` builds it as root: node scripts/test-setup.mjs)";
  return false;
}

/** A `skip` option for node:test: false when a cluster can be started, otherwise the reason printed. */
export const needsPostgres: string | false = missingReason();

/** A running throwaway cluster. */
export interface TestPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser, without a password. */
  url: string;
  /** Stops the server at once (no checkpoint) and deletes its folder; calling it again does nothing. */
  stop(): Promise<void>;
  /** Stops the server at once, as a crash would, keeping its data; `start` brings it back on the same port. */
  kill(): Promise<void>;
  start(): Promise<void>;
  /** Creates an empty database and returns its URL. */
  createDatabase(): Promise<string>;
}

// Runs a PostgreSQL program as the user that owns the clusters.
function command(program: string, args: string[]): [string, string[]] {
  const path = join(postgresBinDir, program);
  return postgresUser ? [runuser, ["-u", "postgres", "--", path, ...args]] : [path, args];
}

// Clusters still running when the process exits (a test that threw before stopping its own) are removed on the way out.
const running = new Set<string>();
process.on("exit", () => {
  for (const folder of running) {
    spawnSync(...command("pg_ctl", ["-D", join(folder, "data"), "-m", "immediate", "stop"]));
    rmSync(folder, { recursive: true, force: true });
  }
});

/** Creates and starts a cluster; `CREATE EXTENSION vector` works in its `postgres` database. */
export async function startPostgres(): Promise<TestPostgres> {
  if (needsPostgres) throw new Error(needsPostgres);
  const folder = mkdtempSync(join(tmpdir(), "videorag-postgres-"));
  if (postgresUser) chownSync(folder, postgresUser.uid, postgresUser.gid);
  const dataDir = join(folder, "data");
  const logFile = join(folder, "server.log");
  try {
    // --no-sync, fsync=off and friends: the data is thrown away, so durability only costs time.
    await run(...command("initdb", ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]));
    // Another process can take the port between freePort() and the server's bind: try a fresh one a few times.
    for (let attempt = 1; ; attempt++) {
      const port = await freePort();
      const options = [
        `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories='${folder}'`,
        // fsync off survives a crash of the server process (the restart tests kill it), only not the machine's;
        // synchronous_commit stays on, or a kill would lose the transactions committed just before it.
        "-c fsync=off -c full_page_writes=off",
      ].join(" ");
      try {
        await run(...command("pg_ctl", ["-D", dataDir, "-l", logFile, "-o", options, "-w", "start"]));
      } catch (error) {
        if (attempt < 3 && /could not bind|already in use/i.test(readLog(logFile))) continue;
        throw new Error(`PostgreSQL did not start: ${readLog(logFile) || String(error)}`, { cause: error });
      }
      running.add(folder);
      const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
      let databases = 0;
      return {
        url,
        async stop() {
          if (!running.delete(folder)) return;
          await run(...command("pg_ctl", ["-D", dataDir, "-m", "immediate", "stop"]));
          rmSync(folder, { recursive: true, force: true });
        },
        async kill() {
          await run(...command("pg_ctl", ["-D", dataDir, "-m", "immediate", "stop"]));
        },
        async start() {
          await run(...command("pg_ctl", ["-D", dataDir, "-l", logFile, "-o", options, "-w", "start"]));
        },
        async createDatabase() {
          const name = `test_${process.pid}_${++databases}`;
          await run(...command("psql", ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-qc", `CREATE DATABASE ${name}`]));
          return `postgres://postgres@127.0.0.1:${port}/${name}`;
        },
      };
    }
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
}

function readLog(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8").trim() : "";
}
