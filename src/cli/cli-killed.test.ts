// A videorag process killed with SIGKILL (no handler runs) leaves nothing behind: the programs it started die with it,
// their scratch is inside the library's per-process scratch, and the next process to open the library removes it.
// A process that ends normally removes its own scratch.

import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cliArguments, runCli } from "../test-support/cli.js";
import { needsShared, sharedPath } from "../test-support/shared.js";

const root = new URL("../..", import.meta.url).pathname;
const linuxOnly = process.platform === "linux" ? false : "parent-death signals are a Linux feature; elsewhere programs are stopped by the process that started them";

/** The pids of the processes whose parent is `pid`. */
function childrenOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return Number(/^\S+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${entry}/stat`, "utf8"))?.[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return [];
  }
}

function isRunning(pid: number): boolean {
  try {
    // A zombie has exited; its parent (here init, or this test runner) has yet to reap it.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let scratch: string;
before(() => {
  scratch = mkdtempSync(join(tmpdir(), "videorag-killed-"));
});
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("a program started by videorag dies with it", { skip: linuxOnly }, () => {
  test("SIGKILL of the process that started a program ends the program within a second", async () => {
    // A node process that starts `sleep 60` as videorag starts ffmpeg, prints its pid, and waits.
    const script = `import { spawnTied } from ${JSON.stringify(join(root, "src/media/run-process.ts"))};
      const child = spawnTied("sleep", ["60"], { stdio: "ignore" });
      console.log(child.pid);
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    parent.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const sleeper = await waitFor(() => (/^\d+$/m.test(out) ? Number(/^(\d+)$/m.exec(out)?.[1]) : undefined), 20_000, "the child's pid");
    assert.ok(isRunning(sleeper));
    // The pid is the program's own (setpriv execs it in place), so stopping it by pid stops the program.
    assert.match(commandLine(sleeper).slice(-2).join(" "), /sleep 60$/);
    parent.kill("SIGKILL");
    await waitFor(() => (isRunning(sleeper) ? undefined : true), 2_000, "sleep to end after its parent was killed");
  });
});

describe("a killed ingest leaves no program running and no file outside the library", { skip: needsShared || linuxOnly }, () => {
  test("pocketsphinx works in the library's scratch, dies with the killed CLI, and the next process clears the scratch", async () => {
    const library = join(scratch, "lib");
    // A minute of speech: pocketsphinx decodes each half-minute clip for several seconds, longer than the wait below.
    const speech = join(scratch, "jfk-six-times.wav");
    execFileSync("ffmpeg", ["-v", "error", "-stream_loop", "5", "-i", sharedPath("media/audio/jfk.wav"), "-c", "copy", speech]);
    const cli = spawn(process.execPath, cliArguments(["ingest", "--library", library, "--no-visual", speech]), {
      cwd: scratch,
      env: { ...process.env, CI: "1" },
      stdio: "ignore",
    });
    const cliPid = cli.pid ?? 0;
    const exited = new Promise<void>((resolve) => cli.once("exit", () => resolve()));
    try {
      const recognizers = await waitFor(() => {
        // Decoding a file, not the registry's check that the program is installed.
        const found = childrenOf(cliPid).filter((pid) => commandLine(pid).some((part) => part.endsWith("pocketsphinx_continuous")) && commandLine(pid).includes("-infile"));
        return found.length > 0 ? found : undefined;
      }, 90_000, "pocketsphinx to start");
      // Its audio is in this process's scratch inside the library, not in the system's temp folder.
      const infile = commandLine(recognizers[0] ?? 0).at(commandLine(recognizers[0] ?? 0).indexOf("-infile") + 1) ?? "";
      assert.ok(infile.startsWith(join(library, "tmp", String(cliPid)) + "/"), infile);
      cli.kill("SIGKILL");
      await exited;
      // Killed by the kernel as its parent dies, not later by a broken pipe when it next prints a word.
      await waitFor(() => (recognizers.some(isRunning) ? undefined : true), 300, "pocketsphinx to end when videorag was killed");
    } finally {
      cli.kill("SIGKILL");
    }
    assert.ok(existsSync(join(library, "tmp", String(cliPid))), "a killed process could not clean up");
    // The next process removes the dead one's scratch, and its own when it ends.
    const listed = runCli(scratch, ["list", "--library", library]);
    assert.equal(listed.status, 0, listed.stderr);
    assert.deepEqual(readdirSync(join(library, "tmp")), []);
  });
});
