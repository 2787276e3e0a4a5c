// Runs the videorag command line as a user does, from a scratch folder, for the CLI tests.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;
// The tests run the CLI from a scratch folder, where `--import tsx` would not resolve: name the loader by path.
const tsxLoader = new URL("node_modules/tsx/dist/loader.mjs", `file://${root}`).href;
/** The node arguments that run `videorag <args>` from source. */
export const cliArguments = (args: string[]): string[] => ["--import", tsxLoader, join(root, "src/cli/run.ts"), ...args];

/** Runs `videorag <args>` to the end. */
export function runCli(cwd: string, args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, cliArguments(args), { cwd, encoding: "utf8", env: { ...process.env, CI: "1", ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `videorag <args>` and kills it with SIGKILL as soon as what it printed on stderr matches `when`; returns that. */
export async function killCliWhen(cwd: string, args: string[], when: RegExp): Promise<string> {
  const child = spawn(process.execPath, cliArguments(args), { cwd, env: { ...process.env, CI: "1" } });
  let stderr = "";
  await new Promise<void>((resolve, reject) => {
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      if (when.test(stderr)) child.kill("SIGKILL");
    });
    child.on("exit", () => resolve());
    child.on("error", reject);
  });
  return stderr;
}
