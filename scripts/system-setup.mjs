// Installs what `npm run demo` and `npm test` need from the system when it is missing: Debian packages through apt-get
// (as root, or through sudo) and pgvector, which Debian 12 does not package, built from the vendored source. One line per
// step on the terminal; what apt-get and make print goes to a log file, named when a step fails.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, relative, resolve } from "node:path";

/** The repository root. */
export const root = new URL("..", import.meta.url).pathname;

const isRoot = process.getuid?.() === 0;
const pgConfig = "/usr/lib/postgresql/15/bin/pg_config";
const vectorControl = "/usr/share/postgresql/15/extension/vector.control";
const pgvectorTarball = "vendor/pgvector-0.8.6.tar.gz";

// Off Debian nothing can be installed, only told: these say whether a package's counterpart is there anyway. Packages
// not named here (language data, headers) come with the program of the package before them.
const probes = {
  ffmpeg: "ffmpeg",
  "tesseract-ocr": "tesseract",
  pocketsphinx: "pocketsphinx_continuous",
  "espeak-ng": "espeak-ng",
  "fonts-dejavu-core": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
  chromium: "/usr/bin/chromium",
  "postgresql-15": "/usr/lib/postgresql/15/bin/postgres",
  "redis-server": "redis-server",
  make: "make",
  gcc: "gcc",
};

/** Whether `program` is a file in one of PATH's folders, or, given a path, whether that file exists. */
function found(program) {
  if (program.startsWith("/")) return existsSync(program);
  return (process.env.PATH ?? "").split(delimiter).some((folder) => folder && existsSync(join(folder, program)));
}

/** The command prefix that runs a command as root: none as root, sudo where there is sudo, undefined otherwise. */
function rootPrefix() {
  if (isRoot) return [];
  return found("sudo") ? ["sudo"] : undefined;
}

/** `[command, args]` for `steps.run` that runs `commandLine` behind `prefix` (from rootPrefix). */
function asRoot(prefix, commandLine) {
  const [command, ...args] = [...prefix, ...commandLine];
  return [command, args];
}

/**
 * Steps that print one line each. `run` sends a command's output to `logFile` (emptied by the first one); when it fails
 * it prints the output's last lines and the log's path, and exits. With `numbered`, lines start `[1]`, `[2]`, …
 */
export function createSteps({ name, logFile, numbered = false }) {
  let stepNumber = 0;
  let logStarted = false;
  const label = (message) => (numbered ? `[${++stepNumber}] ${message}` : message);
  return {
    label,
    /** A line for something found, or not installed, that ran no command. */
    note(message) {
      console.log(message);
    },
    run(message, command, args, options = {}) {
      const started = Date.now();
      process.stdout.write(`${label(message)} … `);
      if (!logStarted) writeFileSync(logFile, "");
      logStarted = true;
      appendFileSync(logFile, `\n== ${message}: ${command} ${args.join(" ")}\n`);
      const result = spawnSync(command, args, { cwd: root, encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...options });
      const output = `${result.stdout ?? ""}${result.stderr ?? ""}`;
      appendFileSync(logFile, output);
      if (result.status !== 0) {
        console.log("failed");
        const tail = output.trim().split("\n").slice(-15).join("\n");
        if (tail) console.error(tail);
        console.error(`${name}: ${message} failed${result.error ? ` (${result.error.message})` : ""}; the whole output is in ${logFile}`);
        process.exit(result.status || 1);
      }
      console.log(`done (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      return result.stdout ?? "";
    },
  };
}

/** The Debian packages among `packages` that dpkg does not list as installed. */
function notInstalled(packages) {
  const result = spawnSync("dpkg-query", ["-W", "-f", "${Package} ${db:Status-Status}\n", ...packages], { encoding: "utf8" });
  const installed = new Set(
    (result.stdout ?? "").split("\n").filter((line) => line.endsWith(" installed")).map((line) => line.split(" ")[0]),
  );
  return packages.filter((name) => !installed.has(name));
}

/**
 * Installs those of the Debian `packages` that are missing, after one line naming those present. Returns undefined once
 * all are there, or a sentence saying what is still missing and how to install it where this could not (no root or
 * sudo, not Debian).
 */
export function installPackages(steps, packages) {
  const debian = found("dpkg-query") && found("apt-get");
  const missing = debian ? notInstalled(packages) : packages.filter((name) => probes[name] && !found(probes[name]));
  const present = packages.filter((name) => !missing.includes(name));
  if (present.length > 0) steps.note(`✓ ${present.join(" ")} present`);
  if (missing.length === 0) return undefined;
  const names = missing.join(" ");
  if (!debian) return `${names} not found, and this is not Debian: install them with its package manager`;
  const prefix = rootPrefix();
  if (!prefix) return `${names} not installed: no root or sudo here; as root, run: apt-get install ${names}`;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  steps.run("updating the Debian package lists", ...asRoot(prefix, ["apt-get", "update", "-qq"]), { env });
  steps.run(`installing ${names}`, ...asRoot(prefix, ["apt-get", "install", "-y", "-qq", "--no-install-recommends", ...missing]), { env });
  return undefined;
}

/**
 * Builds and installs pgvector for PostgreSQL 15 from `<shared>/vendor` where it is missing (needs postgresql-server-dev-15,
 * make and gcc). Returns undefined once it is there, or a sentence saying why it is not.
 */
export function installPgvector(steps) {
  if (existsSync(vectorControl)) {
    steps.note("✓ pgvector present");
    return undefined;
  }
  const candidates = [process.env.VIDEORAG_SHARED_DIR, join(root, "..", "shared")].filter(Boolean);
  const tarball = candidates.map((folder) => resolve(folder, pgvectorTarball)).find((path) => existsSync(path));
  if (!tarball) return `pgvector not installed, and there is no ../shared/${pgvectorTarball} to build it from`;
  if (!existsSync(pgConfig)) return `pgvector not installed: building it needs postgresql-server-dev-15 (${pgConfig})`;
  const prefix = rootPrefix();
  if (!prefix) {
    return `pgvector not installed: no root or sudo here; as root, run: node ${relative(process.cwd(), join(root, "scripts", "test-setup.mjs"))}`;
  }
  const build = mkdtempSync(join(tmpdir(), "pgvector-"));
  steps.run(`building pgvector from ${relative(process.cwd(), tarball)}`, "sh", [
    "-c",
    'tar -xzf "$1" -C "$2" --strip-components=1 && make -C "$2" PG_CONFIG="$3"',
    "sh", tarball, build, pgConfig,
  ]);
  steps.run("installing pgvector", ...asRoot(prefix, ["make", "-C", build, `PG_CONFIG=${pgConfig}`, "install"]));
  rmSync(build, { recursive: true, force: true });
  return undefined;
}
