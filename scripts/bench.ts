// `npm run bench [media|transcripts]`: the project's speed and quality benchmarks, printed as JSON.
import { benchMedia } from "./bench-media.js";

const which = process.argv[2] ?? "all";
const results: Record<string, unknown> = { machine: { cpus: (await import("node:os")).cpus().length, node: process.version } };
if (which === "all" || which === "media") results.media = await benchMedia(Number(process.env.BENCH_RUNS ?? 3));
if (which === "all" || which === "transcripts") {
  const { benchTranscripts } = await import("./bench-transcripts.js");
  results.transcripts = await benchTranscripts();
}
console.log(JSON.stringify(results, null, 2));
