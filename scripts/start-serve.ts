// Starts `videorag serve` as its own process for the benchmarks, resolving once it prints the URL it listens on.
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";

const root = resolve(new URL("..", import.meta.url).pathname);

/** `videorag serve --port 0` with these extra arguments (and environment); stop it by killing the child. */
export function startServe(args: string[], env: Record<string, string> = {}): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "src/cli/run.ts"), "serve", "--port", "0", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "ignore"],
  });
  return new Promise((resolveStart, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const url = /at (http:\/\/\S+)/.exec(out)?.[1];
      if (url) resolveStart({ child, url });
    });
    child.once("exit", (code) => reject(new Error(`videorag serve exited with ${code}`)));
  });
}
