// What one hybrid search costs on the 8,648 how-to transcripts, and what it cost in another checkout of the code, side
// by side: each dev question is searched once (`retrieve`, hybrid, limit 50, after 60 human questions to warm up: not
// dev questions, so that what a search keeps for later questions is not handed the measured questions' words) in a child
// process per checkout, the checkouts taking turns on copies of one library, so a shared machine's noise falls on both.
// Each checkout first ingests the transcripts into its copy again (each is skipped: nothing changed), so that each copy
// is as that checkout's code leaves a library it ingested (this one merges the lexical indexes an ingest wrote).
// Reports wall and CPU p50/p95 per run, and a hash of the retrieved clips and scores: equal hashes mean the same results.
//
//   npm run bench search-cost -- [--library dir] [--compare <checkout of the code before>] [--runs 2]
//
// Without --library the transcripts are ingested into a temporary library first (about two minutes).

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadQuestions } from "../src/eval/load-questions.js";

const root = resolve(new URL("..", import.meta.url).pathname);
const shared = [process.env.VIDEORAG_SHARED_DIR, join(root, "../shared")].find((dir): dir is string => dir !== undefined && existsSync(join(dir, "datasets/howto-qa")));

interface RunResult {
  code: string;
  wallP50: number;
  wallP95: number;
  cpuP50: number;
  /** What a server's throughput goes by: the CPU of all searches over their number. */
  cpuMean: number;
  results: string;
}

/** In a child process: the transcripts ingested again into a library by one checkout (`codeRoot`): each is skipped. */
async function reingest(codeRoot: string, library: string): Promise<void> {
  const { openLibrary } = (await import(join(codeRoot, "src/library.ts"))) as typeof import("../src/library.js");
  const opened = await openLibrary({ path: library });
  try {
    await opened.ingestTranscripts(join(shared ?? "", "datasets/howto-qa/transcripts"));
  } finally {
    await opened.close();
  }
}

/** In a child process: the searches of one checkout (`codeRoot`) on one library. */
async function measure(codeRoot: string, library: string): Promise<Omit<RunResult, "code">> {
  const { retrieve } = (await import(join(codeRoot, "src/retrieval/index.ts"))) as typeof import("../src/retrieval/index.js");
  const { openSqliteStore } = (await import(join(codeRoot, "src/store/index.ts"))) as typeof import("../src/store/index.js");
  const store = openSqliteStore(join(library, "library.sqlite"));
  const questionsOf = (file: string): string[] => loadQuestions(join(shared ?? "", "datasets/howto-qa", file)).map((entry) => entry.question);
  const questions = questionsOf("dev-questions.json");
  try {
    for (const question of questionsOf("human-questions.json").slice(0, 60)) await retrieve(store, question, { mode: "hybrid", limit: 50 });
    const wall: number[] = [];
    const cpu: number[] = [];
    const hash = createHash("sha256");
    for (const question of questions) {
      const started = performance.now();
      const usage = process.cpuUsage();
      const found = await retrieve(store, question, { mode: "hybrid", limit: 50 });
      const used = process.cpuUsage(usage);
      wall.push(performance.now() - started);
      cpu.push((used.user + used.system) / 1000);
      hash.update(JSON.stringify(found.clips.map((clip) => [clip.videoId, clip.clipIndex, clip.score])));
    }
    return { wallP50: percentile(wall, 0.5), wallP95: percentile(wall, 0.95), cpuP50: percentile(cpu, 0.5), cpuMean: Math.round((cpu.reduce((sum, value) => sum + value, 0) / Math.max(1, cpu.length)) * 10) / 10, results: hash.digest("hex").slice(0, 12) };
  } finally {
    await store.close();
  }
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0) * 10) / 10;
}

export async function benchSearchCost(args: string[], log: (line: string) => void): Promise<Record<string, unknown>> {
  const { values } = parseArgs({ args, options: { library: { type: "string" }, compare: { type: "string" }, runs: { type: "string" } } });
  if (!shared) return { skipped: "../shared (datasets/howto-qa) is not beside this checkout; nothing to benchmark" };
  const runs = Number(values.runs ?? 2);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs takes a whole number of at least 1, not "${values.runs}"`);
  const scratch = mkdtempSync(join(tmpdir(), "videorag-search-cost-"));
  try {
    const library = values.library ? resolve(values.library) : join(scratch, "library");
    if (!values.library) {
      log("ingesting the transcripts into a temporary library");
      const { openLibrary } = await import("../src/library.js");
      const made = await openLibrary({ path: library });
      await made.ingestTranscripts(join(shared, "datasets/howto-qa/transcripts"));
      await made.close();
    }
    const checkouts = [...(values.compare ? [{ code: resolve(values.compare), name: "compared" }] : []), { code: root, name: "this" }];
    // One copy of the library per checkout: opening it may migrate the file, which the other checkout must not see.
    const copies = checkouts.map((checkout, index) => {
      const copy = join(scratch, `copy-${index}`);
      cpSync(library, copy, { recursive: true });
      log(`${checkout.name}: the transcripts ingested again into its copy of the library`);
      execFileSync(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--reingest", checkout.code, copy], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
      return { ...checkout, library: copy };
    });
    const rows: RunResult[] = [];
    for (let run = 0; run < runs; run++) {
      for (const checkout of copies) {
        const output = execFileSync(process.execPath, ["--import", "tsx", new URL(import.meta.url).pathname, "--measure", checkout.code, checkout.library], { cwd: root, encoding: "utf8" });
        const row = { code: checkout.name, ...(JSON.parse(output) as Omit<RunResult, "code">) };
        log(`${row.code}: wall p50 ${row.wallP50} ms, p95 ${row.wallP95} ms; CPU p50 ${row.cpuP50} ms, mean ${row.cpuMean} ms; results ${row.results}`);
        rows.push(row);
      }
    }
    return { date: new Date().toISOString().slice(0, 10), questions: "dev (534)", mode: "hybrid", runs: rows };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[2] === "--reingest") {
  const [codeRoot, library] = process.argv.slice(3);
  await reingest(codeRoot ?? root, library ?? "");
}
if (process.argv[2] === "--measure") {
  const [codeRoot, library] = process.argv.slice(3);
  process.stdout.write(JSON.stringify(await measure(codeRoot ?? root, library ?? "")));
}
