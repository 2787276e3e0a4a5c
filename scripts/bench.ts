// `npm run bench [media|transcripts|detect|visual|entities|frames|incremental|transcriber|server|scale|workers|lite|soak|summaries|speakers|who-said|languages|segmenter|search-cost]`: the project's speed and quality benchmarks, printed as JSON.
// `npm run bench scale -- --hours 100,1000 [--store sqlite|postgres://…] [--queries 100] [--keep dir]`: see bench-scale.ts.
// `npm run bench soak -- [--minutes 10] [--clients 16] [--keep dir]`: see bench-soak.ts.
// `npm run bench summaries -- [--only chapters,narrated,coverage,cost] [--videos 60] [--out file]`: see bench-summaries.ts.
// `npm run bench speakers -- [--conversations 40] [--seed 1] [--keep dir] [--no-tune]`: see bench-speakers.ts.
// `npm run bench who-said -- [--meetings 20] [--questions 5] [--seed 1] [--keep dir]`: see bench-who-said.ts.
// `npm run bench languages -- [--lines 30] [--seed 1] [--no-screen] [--keep dir]`: see bench-languages.ts.
// `npm run bench segmenter -- [--lines 5000] [--queries 1000] [--seed 1]`: see bench-segmenter.ts.
// `npm run bench search-cost -- [--library dir] [--compare <checkout>] [--runs 2]`: see bench-search-cost.ts.
import { benchMedia } from "./bench-media.js";

const which = process.argv[2] ?? "all";
const results: Record<string, unknown> = { machine: { cpus: (await import("node:os")).cpus().length, node: process.version } };
if (which === "all" || which === "media") results.media = await benchMedia(Number(process.env.BENCH_RUNS ?? 3));
if (which === "all" || which === "transcripts") {
  const { benchTranscripts } = await import("./bench-transcripts.js");
  results.transcripts = await benchTranscripts();
}
if (which === "all" || which === "detect") {
  const { benchDetect } = await import("./bench-detect.js");
  results.detect = await benchDetect();
}
if (which === "all" || which === "visual") {
  const { benchVisual } = await import("./bench-visual.js");
  results.visual = await benchVisual(Number(process.env.BENCH_RUNS ?? 3));
}
if (which === "all" || which === "entities") {
  const { benchEntities } = await import("./bench-entities.js");
  results.entities = await benchEntities();
}
if (which === "all" || which === "frames") {
  const { benchFrames } = await import("./bench-frames.js");
  results.frames = await benchFrames();
}
// Not part of "all": it builds the 8,648-transcript library and runs a server with 16 clients (a few minutes).
if (which === "server") {
  const { benchServer } = await import("./bench-server.js");
  results.server = await benchServer();
}
// Not part of "all": it ingests half an hour of speech twice (about ten minutes on two cores).
if (which === "transcriber") {
  const { benchTranscriber } = await import("./bench-transcriber.js");
  results.transcriber = await benchTranscriber(process.argv.slice(3));
}
if (which === "incremental") {
  const { benchIncremental } = await import("./bench-incremental.js");
  results.incremental = await benchIncremental(process.argv.slice(3));
}
// Not part of "all": it builds synthetic libraries of 100 and 1,000 hours (a few minutes on SQLite), or as --hours says.
if (which === "scale") {
  const { benchScale, parseScaleArgs } = await import("./bench-scale.js");
  results.scale = await benchScale(parseScaleArgs(process.argv.slice(3)));
}
// Not part of "all": cross-validated ranking and answers of the lite profile on the how-to dev questions (a few minutes).
if (which === "lite") {
  const { benchLite } = await import("./bench-lite.js");
  results.lite = await benchLite();
}
// Not part of "all": one worker, then two, ingest the media in ../shared from a Redis queue (about 10 minutes).
if (which === "workers") {
  const { benchWorkers } = await import("./bench-workers.js");
  results.workers = await benchWorkers();
}
// Not part of "all": `serve` under 16 clients that search, ask, upload, cancel and fetch media while ingest runs (10 minutes).
if (which === "soak") {
  const { benchSoak, parseSoakArgs } = await import("./bench-soak.js");
  results.soak = await benchSoak(parseSoakArgs(process.argv.slice(3)));
}
// Not part of "all": chapters and summaries on joined how-to transcripts and on generated narrated videos (a few minutes).
if (which === "summaries") {
  const { benchSummaries, parseSummariesArgs } = await import("./bench-summaries.js");
  results.summaries = await benchSummaries({ ...parseSummariesArgs(process.argv.slice(3)), log: (line) => console.error(line) });
}
// Not part of "all": a moment found by a stretch of its line in German, French, Spanish, Chinese, Japanese and English.
if (which === "languages") {
  const { benchLanguages, parseLanguagesArgs } = await import("./bench-languages.js");
  results.languages = await benchLanguages({ ...parseLanguagesArgs(process.argv.slice(3)), log: (line) => console.error(line) });
}
// Not part of "all": Intl.Segmenter's Chinese and Japanese words against the index's character pairs (a minute).
if (which === "search-cost") {
  const { benchSearchCost } = await import("./bench-search-cost.js");
  results.searchCost = await benchSearchCost(process.argv.slice(3), (line) => console.error(line));
}
if (which === "segmenter") {
  const { benchSegmenter, parseSegmenterArgs } = await import("./bench-segmenter.js");
  results.segmenter = await benchSegmenter({ ...parseSegmenterArgs(process.argv.slice(3)), log: (line) => console.error(line) });
}
// Not part of "all": "who said" questions over built meetings whose subtitles name no one (a few minutes).
if (which === "who-said") {
  const { benchWhoSaid, parseWhoSaidArgs } = await import("./bench-who-said.js");
  results.whoSaid = await benchWhoSaid({ ...parseWhoSaidArgs(process.argv.slice(3)), log: (line) => console.error(line) });
}
// Not part of "all": builds an hour of conversations with known turns and diarizes them with the lite diarizer (minutes).
if (which === "speakers") {
  const { benchSpeakers, parseSpeakersArgs } = await import("./bench-speakers.js");
  results.speakers = await benchSpeakers({ ...parseSpeakersArgs(process.argv.slice(3)), log: (line) => console.error(line) });
}
console.log(JSON.stringify(results, null, 2));
