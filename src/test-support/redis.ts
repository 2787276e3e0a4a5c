// Throwaway Redis servers for the tests of the job queue: each one listens on a free port on 127.0.0.1, keeps nothing
// on disk and is killed when stopped. Tests skip with `needsRedis` where redis-server is missing.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { freePort } from "./free-port.js";

/** A `skip` option for node:test: false when redis-server is on the PATH, otherwise the reason printed. */
export const needsRedis: string | false =
  spawnSync("redis-server", ["--version"]).status === 0 ? false : "Redis is not installed (apt-get install redis-server)";

/** A running throwaway server. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  /** Kills the server and waits for it to exit; calling it again does nothing. */
  stop(): Promise<void>;
}

/** Starts a server and waits until it answers PING. */
export async function startRedis(): Promise<TestRedis> {
  if (needsRedis) throw new Error(needsRedis);
  // The log goes to a file, not a pipe: a pipe would keep this process alive if a test forgot to stop the server.
  const folder = mkdtempSync(join(tmpdir(), "videorag-redis-"));
  const logFile = join(folder, "server.log");
  // Another process can take the port between freePort() and the server's bind: try a fresh one a few times.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const log = openSync(logFile, "w");
    const server = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no"],
      { stdio: ["ignore", log, log] },
    );
    closeSync(log);
    server.unref();
    const exited = new Promise<void>((resolve) => server.once("exit", () => resolve()));
    // Waiting for the exit needs the child referenced again, or node sees nothing pending and ends the wait early.
    const kill = async () => {
      server.ref();
      server.kill("SIGKILL");
      await exited;
    };
    const isRunning = () => server.exitCode === null && server.signalCode === null;
    // A test that threw before stopping its server must not leave it running after the process ends.
    const killOnExit = () => {
      server.kill("SIGKILL");
      rmSync(folder, { recursive: true, force: true });
    };
    process.on("exit", killOnExit);

    let timedOut = false;
    const deadline = Date.now() + 10_000;
    while (isRunning() && !(await answersPing(port))) {
      if (Date.now() > deadline) {
        timedOut = true;
        await kill();
        break;
      }
      await delay(25);
    }
    if (isRunning()) {
      return {
        url: `redis://127.0.0.1:${port}`,
        async stop() {
          process.off("exit", killOnExit);
          if (isRunning()) await kill();
          rmSync(folder, { recursive: true, force: true });
        },
      };
    }
    process.off("exit", killOnExit);
    const output = readFileSync(logFile, "utf8").trim();
    if (attempt < 3 && /address already in use/i.test(output)) continue;
    rmSync(folder, { recursive: true, force: true });
    throw new Error(`Redis did not start on port ${port}${timedOut ? " (no reply to PING within 10 s)" : ""}: ${output}`);
  }
}

// Sends an inline PING and resolves true on +PONG; false on any error (nothing listening yet).
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    let reply = "";
    socket.setTimeout(1000, () => socket.destroy());
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk: Buffer) => {
      reply += chunk.toString();
      if (reply.includes("\r\n")) socket.end();
    });
    socket.on("close", () => resolve(reply.startsWith("+PONG")));
    socket.on("error", () => undefined);
  });
}
