// The videorag command line: argument parsing over the library API. Sets process.exitCode, never calls process.exit.

import { existsSync } from "node:fs";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { formatCitation, formatTimestamp, stripCitations } from "../answer/index.js";
import { answerJson, chapterJson, hitJson, summaryJson, videoJson } from "../api/index.js";
import { loadConfig } from "../config/index.js";
import { evalRetrieval, loadQuestions, rougeL } from "../eval/index.js";
import { defaultLibraryPath, openLibrary, type Library, type LibraryOptions } from "../library.js";
import { serveMcp } from "../mcp/index.js";
import { diagnose } from "../providers/doctor.js";
import { listModels, modelsDir, pullModels, verifyModels } from "../providers/models/index.js";
import { VideoRagError, retrievalModes, type HitProvenance, type PreliminaryAnswer, type RetrievalMode, type Video } from "../spec/index.js";
import { packageVersion } from "../package-version.js";
import { chaptersVtt, summaryLengths, type SummaryLength } from "../summary/index.js";
import { checkExposure, startServer } from "../server/index.js";
import { reportError } from "./exit-codes.js";
import { queueCommand, queueIngestCommand, workerCommand } from "./queue-commands.js";
import { commandHelp, overviewHelp } from "./help.js";
import { createCountPrinter, createExtractionPrinter, createProgressPrinter, formatSummary } from "./progress.js";

const options = {
  library: { type: "string" },
  json: { type: "boolean" },
  limit: { type: "string" },
  transcripts: { type: "string" },
  questions: { type: "string" },
  "clip-seconds": { type: "string" },
  "no-ocr": { type: "boolean" },
  "no-speech": { type: "boolean" },
  "no-visual": { type: "boolean" },
  config: { type: "string" },
  "models-dir": { type: "string" },
  mode: { type: "string" },
  without: { type: "string", multiple: true },
  explain: { type: "boolean" },
  incremental: { type: "boolean" },
  "no-extract": { type: "boolean" },
  all: { type: "boolean" },
  budget: { type: "string" },
  video: { type: "string", multiple: true },
  length: { type: "string" },
  vtt: { type: "boolean" },
  speaker: { type: "string" },
  speakers: { type: "string" },
  language: { type: "string" },
  rename: { type: "string", multiple: true },
  port: { type: "string" },
  host: { type: "string" },
  token: { type: "string" },
  "media-root": { type: "string", multiple: true },
  cors: { type: "string", multiple: true },
  "allowed-host": { type: "string", multiple: true },
  "upload-limit": { type: "string" },
  queue: { type: "string" },
  wait: { type: "boolean" },
  concurrency: { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} satisfies ParseArgsConfig["options"];

type Values = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>["values"];

function positiveInteger(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed <= 0) throw new VideoRagError("ARGUMENT_INVALID", `--${name} must be a positive number, got "${value}"`);
  return parsed;
}

function retrievalMode(value: string | undefined): RetrievalMode | undefined {
  if (value === undefined) return undefined;
  if (!(retrievalModes as readonly string[]).includes(value)) {
    throw new VideoRagError("ARGUMENT_INVALID", `--mode must be one of ${retrievalModes.join(", ")}, got "${value}"`);
  }
  return value as RetrievalMode;
}

function ablations(values: string[] | undefined): ("graph" | "visual")[] | undefined {
  if (!values) return undefined;
  for (const value of values) {
    if (value !== "graph" && value !== "visual") throw new VideoRagError("ARGUMENT_INVALID", `--without takes graph or visual, got "${value}"`);
  }
  return values as ("graph" | "visual")[];
}

/** How a retriever found a moment, in one line: "graph (rank 2, entities: popeye, sinbad)". */
function describeProvenance(found: HitProvenance): string {
  const details = [
    `rank ${found.rank}`,
    `score ${Number(found.score.toPrecision(3))}`,
    ...(found.entities?.length ? [`entities: ${found.entities.join(", ")}`] : []),
    ...(found.frameSecond !== undefined ? [`frame at ${formatTimestamp(found.frameSecond)}`] : []),
    ...(found.detail ? [found.detail] : []),
  ];
  return `${found.retriever} (${details.join(", ")})`;
}

function print(json: boolean | undefined, data: unknown, text: () => string): void {
  console.log(json ? JSON.stringify(data, null, 2) : text());
}

/** Prints model download progress to stderr, at most twice a second per file. */
function downloadPrinter(): (file: string, done: number, total: number | undefined) => void {
  const last = new Map<string, number>();
  return (file, done, total) => {
    const now = Date.now();
    if (now - (last.get(file) ?? 0) < 500 && done !== total) return;
    last.set(file, now);
    process.stderr.write(`downloading ${file}: ${megabytes(done)}${total ? ` of ${megabytes(total)}` : ""}\n`);
  };
}

/** The library options the flags and the configuration file give. */
function libraryOptions(values: Values): LibraryOptions {
  const { config } = loadConfig({ file: values.config });
  return {
    path: values.library ?? config.store?.url ?? config.library,
    config,
    ...(values["clip-seconds"] ? { clipSeconds: positiveInteger(values["clip-seconds"], "clip-seconds", 30) } : {}),
    ...(values["models-dir"] ? { modelsDir: values["models-dir"] } : {}),
    ocr: !values["no-ocr"],
    speech: !values["no-speech"],
    visual: !values["no-visual"],
  };
}

async function withLibrary<T>(values: Values, work: (library: Library, options: LibraryOptions) => Promise<T>): Promise<T> {
  const options = libraryOptions(values);
  const printDownload = downloadPrinter();
  const library = await openLibrary({ ...options, onModelDownload: (_model, file, done, total) => printDownload(file, done, total) });
  try {
    return await work(library, options);
  } finally {
    await library.close();
  }
}

/** Runs long work that Ctrl-C (or SIGTERM) stops cleanly: the work sees an aborted signal, the user `message`. */
async function interruptible(message: string, work: (signal: AbortSignal) => Promise<void>): Promise<void> {
  const controller = new AbortController();
  const interrupt = (): void => controller.abort(new VideoRagError("INTERRUPTED", message));
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    await work(controller.signal);
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
  }
}

async function ingestCommand(values: Values, inputs: string[]): Promise<void> {
  if (inputs.length === 0 && !values.transcripts) throw new VideoRagError("ARGUMENT_INVALID", "ingest needs files, folders or --transcripts <dir>");
  if (values.queue) {
    if (values.transcripts) throw new VideoRagError("ARGUMENT_INVALID", "--transcripts cannot go through the queue yet; ingest transcripts without --queue");
    const { config } = loadConfig({ file: values.config });
    const library = values.library ?? config.store?.url ?? config.library ?? defaultLibraryPath();
    return interruptible("interrupted; the queued jobs stay queued", (signal) => queueIngestCommand(values, inputs, library, signal));
  }
  await interruptible("interrupted; run the same ingest again to resume", async (signal) => {
    await withLibrary(values, async (library) => {
      const reports = [];
      if (values.transcripts) reports.push(await library.ingestTranscripts(values.transcripts, { onProgress: createCountPrinter(), signal }));
      if (inputs.length > 0) {
        reports.push(
          await library.ingest(inputs, {
            onProgress: createProgressPrinter(),
            signal,
            ...(values.incremental ? { incremental: true } : {}),
            ...(values.speakers ? { speakers: positiveInteger(values.speakers, "speakers", 1) } : {}),
            ...(values.language ? { language: values.language } : {}),
          }),
        );
      }
      const providers = inputs.length > 0 ? await library.providers() : [];
      for (const report of reports) {
        if (values.json) console.log(JSON.stringify(report, null, 2));
        else console.log(formatSummary(report, providers));
        if (report.failed > 0) process.exitCode = 3;
      }
    });
  });
}

async function askCommand(values: Values, words: string[]): Promise<void> {
  const question = words.join(" ").trim();
  if (!question) throw new VideoRagError("ARGUMENT_INVALID", 'ask needs a question, e.g. videorag ask "who is in a bad humor?"');
  // Ctrl-C while clips are being extracted keeps what was written back; the rest stays pending.
  await interruptible("interrupted; clips extracted so far are kept", (signal) => withLibrary(values, async (library) => {
    // The answer is printed as the model writes it; sources and warnings follow when it is done.
    const streamed = !values.json;
    const extraction = createExtractionPrinter();
    // A question that waits for extraction first gets the answer the index gives now (dimmed on a terminal), then the final one.
    let headed = true;
    const answer = await library.ask(question, {
      limit: values.limit ? positiveInteger(values.limit, "limit", 8) : undefined,
      mode: retrievalMode(values.mode),
      onPreliminary: streamed
        ? (first) => {
            process.stdout.write(preliminaryBlock(first, Boolean(process.stdout.isTTY) && !process.env.NO_COLOR));
            headed = false;
          }
        : undefined,
      onText: streamed
        ? (delta) => {
            if (!headed) process.stdout.write("Final answer:\n");
            headed = true;
            process.stdout.write(delta);
          }
        : undefined,
      onExtraction: extraction,
      extract: !values["no-extract"],
      videos: values.video,
      signal,
    });
    if (streamed) process.stdout.write("\n");
    print(values.json, answerJson(question, answer), () => {
      const lines: string[] = [];
      if (answer.citations.length > 0) {
        lines.push("", "Sources:");
        answer.citations.forEach((citation, index) => {
          lines.push(`  ${index + 1}. ${formatCitation(citation, citation.timesEstimated)} ${citation.path}`);
          if (!values.explain) return;
          // The retrieved moment the citation falls in tells which retrievers found it.
          const moment = answer.moments?.find((hit) => hit.videoId === citation.videoId && hit.startSecond < citation.endSecond + 15 && hit.endSecond > citation.startSecond - 15);
          const found = moment?.provenance ?? [];
          lines.push(`     found by ${found.length > 0 ? found.map(describeProvenance).join("; ") : "no retriever (added as context)"}`);
        });
      }
      for (const warning of answer.warnings) lines.push(`warning: ${warning.detail}`);
      const first = answer.preliminary ? `first answer ${answer.preliminary.timings.totalMs} ms, final ` : "";
      lines.push("", `(${answer.profile.summary}; ${first}${answer.timings.totalMs} ms)`);
      return lines.join("\n");
    });
  }));
}

/** The preliminary answer as the CLI prints it: labelled, its sources counted, dimmed on a terminal. */
function preliminaryBlock(answer: PreliminaryAnswer, dim: boolean): string {
  const sources = answer.citations.length === 1 ? "1 source" : `${answer.citations.length} sources`;
  const block = `Preliminary answer, from what is indexed now (${sources}, ${answer.timings.totalMs} ms):\n${answer.text}\n`;
  return `${dim ? `\x1b[2m${block}\x1b[0m` : block}\n`;
}

async function chaptersCommand(values: Values, references: string[]): Promise<void> {
  const reference = references.join(" ").trim();
  if (!reference) throw new VideoRagError("ARGUMENT_INVALID", "chapters needs a video (an id, id prefix, path or title)");
  if (values.json && values.vtt) throw new VideoRagError("ARGUMENT_INVALID", "give --json or --vtt, not both");
  await withLibrary(values, async (library) => {
    const { video, chapters } = await library.chapters(reference);
    if (values.vtt) {
      console.log(chaptersVtt(chapters));
      return;
    }
    print(values.json, { videoId: video.id, title: video.title, chapters: chapters.map(chapterJson) }, () =>
      chapters.length === 0
        ? `${video.title} has no chapters: no subtitles, speech or screen text is indexed.`
        : chapters
            .map((chapter) => `${formatTimestamp(chapter.startSecond)}–${formatTimestamp(chapter.endSecond)}  ${chapter.title}${chapter.summary ? `\n    ${chapter.summary}` : ""}`)
            .join("\n"),
    );
  });
}

async function speakersCommand(values: Values, references: string[]): Promise<void> {
  const reference = references.join(" ").trim();
  if (!reference) throw new VideoRagError("ARGUMENT_INVALID", 'speakers needs a video (an id, id prefix, path or title), e.g. videorag speakers meeting.mp4 --rename "Speaker 2=Dana"');
  const renames = (values.rename ?? []).map((rename) => {
    const at = rename.indexOf("=");
    if (at <= 0) throw new VideoRagError("ARGUMENT_INVALID", `--rename takes "<label>=<name>" (an empty name clears it), not "${rename}"`);
    return { label: rename.slice(0, at).trim(), name: rename.slice(at + 1).trim() || null };
  });
  await withLibrary(values, async (library) => {
    let found = await library.speakers(reference);
    for (const rename of renames) found = { ...found, speakers: await library.renameSpeaker(found.video.id, rename.label, rename.name) };
    const { video, speakers } = found;
    print(values.json, { videoId: video.id, title: video.title, speakers }, () =>
      speakers.length === 0
        ? `${video.title} has no speakers: no speech was split into voices (and no subtitle names who speaks).`
        : speakers
            .map((speaker) => {
              const line = `${speaker.name ? `${speaker.name} (${speaker.label})` : speaker.label}  ${formatTimestamp(speaker.talkSeconds)} of talk, from ${formatTimestamp(speaker.firstSecond)}: "${speaker.firstWords}"`;
              const alike = (speaker.sameVoice ?? []).map((match) => `${match.name ?? match.label} in ${match.title} (${match.similarity.toFixed(2)})`);
              return alike.length > 0 ? `${line}\n    same voice as ${alike.join(", ")}?` : line;
            })
            .join("\n"),
    );
  });
}

async function summarizeCommand(values: Values, references: string[]): Promise<void> {
  const reference = references.join(" ").trim();
  if (!reference) throw new VideoRagError("ARGUMENT_INVALID", "summarize needs a video (an id, id prefix, path or title)");
  const length = values.length ?? "medium";
  if (!summaryLengths.includes(length as SummaryLength)) throw new VideoRagError("ARGUMENT_INVALID", `--length must be short, medium or long, not "${length}"`);
  await interruptible("interrupted", (signal) => withLibrary(values, async (library) => {
    const streamed = !values.json;
    let wrote = false;
    const summary = await library.summarize(reference, {
      length: length as SummaryLength,
      onText: streamed ? (delta) => ((wrote = true), process.stdout.write(delta)) : undefined,
      signal,
    });
    if (streamed) {
      if (!wrote) process.stdout.write(summary.text);
      process.stdout.write("\n");
    }
    print(values.json, summaryJson(summary), () => {
      const lines = summary.warnings.map((warning) => `warning: ${warning.detail}`);
      lines.push("", `(${summary.madeBy === "lite" ? "lite: extractive summary, no language model" : `written by ${summary.madeBy}`}; ${summary.chapters.length} chapters)`);
      return lines.join("\n");
    });
  }));
}

async function searchCommand(values: Values, words: string[]): Promise<void> {
  const query = words.join(" ").trim();
  if (!query) throw new VideoRagError("ARGUMENT_INVALID", "search needs a query");
  await withLibrary(values, async (library) => {
    const hits = await library.search(query, {
      limit: positiveInteger(values.limit, "limit", 10),
      mode: retrievalMode(values.mode),
      videos: values.video,
      ...(values.speaker ? { speaker: values.speaker } : {}),
    });
    print(
      values.json,
      { hits: hits.map(hitJson) },
      () =>
        hits.length === 0
          ? "No matching moments."
          : hits
              .map((hit, index) => {
                const head = `${index + 1}. ${formatCitation(hit)} score ${hit.score.toPrecision(3)} (${[hit.retriever, ...hit.source].join(", ")})\n   ${hit.text.replace(/\s+/g, " ").slice(0, 200)}`;
                return values.explain && hit.provenance ? `${head}\n   found by ${hit.provenance.map(describeProvenance).join("; ")}` : head;
              })
              .join("\n"),
    );
  });
}

async function entityCommand(values: Values, words: string[]): Promise<void> {
  const name = words.join(" ").trim();
  if (!name) throw new VideoRagError("ARGUMENT_INVALID", 'entity needs a name, e.g. videorag entity "popeye"');
  await withLibrary(values, async (library) => {
    const entity = await library.entity(name);
    if (!entity) throw new VideoRagError("ARGUMENT_INVALID", `no entity "${name}" in the library's graph (${(await library.graphStats()).entities} entities)`, { subject: name });
    const titles = new Map((await library.list()).map((video) => [video.id, video.title]));
    print(values.json, entity, () =>
      [
        `${entity.name} (${entity.type})`,
        entity.description ? `  ${entity.description}` : "",
        `sources (${new Set(entity.sources.map((source) => source.videoId)).size} videos):`,
        ...entity.sources.map((source) => `  ${titles.get(source.videoId) ?? source.videoId} chunk ${source.chunkIndex} (clips ${source.clipStart}–${source.clipEnd}): ${source.description.slice(0, 160)}`),
      ].filter(Boolean).join("\n"),
    );
  });
}

async function listCommand(values: Values): Promise<void> {
  await withLibrary(values, async (library) => {
    const pending = new Map((await library.status()).byVideo.map((entry) => [entry.videoId, entry]));
    const videos = (await library.list()).map((video) => videoJson(video, pending.get(video.id)));
    print(values.json, { videos }, () =>
      videos.length === 0
        ? `The library at ${library.location} is empty. Add videos with: videorag ingest <files>`
        : videos
            .map((video) => {
              const work = video.pendingClips > 0 ? `  (${video.pendingClips} clips pending)` : "";
              return `${video.id}  ${formatTimestamp(video.durationSeconds).padStart(8)}  ${String(video.clipCount).padStart(4)} clips  ${(video.language ?? "--").padEnd(3)} ${video.title}  ${video.path}${work}`;
            })
            .join("\n"),
    );
  });
}

async function statusCommand(values: Values): Promise<void> {
  await withLibrary(values, async (library) => {
    const status = await library.status();
    const titles = new Map((await library.list()).map((video) => [video.id, video.title]));
    const { byVideo, ...totals } = status;
    print(values.json, { ...totals, byVideo: byVideo.map((entry) => ({ ...entry, title: titles.get(entry.videoId) ?? "" })) }, () =>
      [
        `${status.videos} videos, ${status.clips} clips: ${status.extractedClips} extracted, ${status.pendingClips} pending, ${status.failedClips} failed`,
        ...Object.entries(status.stages).map(([stage, counts]) => `  ${`${stage}:`.padEnd(13)} ${String(counts.done).padStart(6)} done ${String(counts.pending).padStart(6)} pending ${String(counts.failed).padStart(6)} failed`),
        ...(byVideo.some((entry) => entry.pendingClips + entry.failedClips > 0) ? ["", "videos with deferred work:"] : []),
        ...byVideo
          .filter((entry) => entry.pendingClips + entry.failedClips > 0)
          .map((entry) => `  ${entry.videoId}  ${String(entry.extractedClips).padStart(4)}/${entry.clips} extracted, ${entry.pendingClips} pending, ${entry.failedClips} failed  ${titles.get(entry.videoId) ?? ""}`),
      ].join("\n"),
    );
  });
}

async function extractCommand(values: Values): Promise<void> {
  if (values.all && values.budget !== undefined) throw new VideoRagError("ARGUMENT_INVALID", "extract takes --all or --budget <clips>, not both");
  const budgetClips = values.budget !== undefined ? positiveInteger(values.budget, "budget", 1) : undefined;
  await interruptible("interrupted; what was extracted is kept, run extract again to go on", async (signal) => {
    await withLibrary(values, async (library) => {
      const before = await library.status();
      const report = await library.extract({ budgetClips, video: values.video?.at(-1), onProgress: createExtractionPrinter(), signal });
      const after = await library.status();
      const data = { clips: report.clips, failed: report.failed, seconds: Number(report.seconds.toFixed(2)), warnings: report.warnings, before: { pendingClips: before.pendingClips }, status: after };
      print(values.json, data, () =>
        [
          `extracted ${report.clips.length} clips in ${report.seconds.toFixed(1)} s; ${after.pendingClips} clips still pending, ${after.failedClips} failed`,
          ...report.failed.slice(0, 10).map((failure) => `  failed: clip ${failure.clipIndex} of ${failure.videoId} (${failure.stage}): ${failure.error}`),
          ...report.warnings.map((warning) => `warning: ${warning.detail}`),
        ].join("\n"),
      );
      if (report.failed.length > 0) process.exitCode = 3;
    });
  });
}

async function removeCommand(values: Values, references: string[]): Promise<void> {
  if (references.length === 0) throw new VideoRagError("ARGUMENT_INVALID", "remove needs a video id (see videorag list)");
  await withLibrary(values, async (library) => {
    const removed: Video[] = [];
    for (const reference of references) removed.push(await library.remove(reference));
    print(values.json, { removed: removed.map((video) => ({ id: video.id, path: video.path })) }, () =>
      removed.map((video) => `removed ${video.id} ${video.title}`).join("\n"),
    );
  });
}

async function evalCommand(values: Values, args: string[]): Promise<void> {
  const [kind] = args;
  if (kind !== "retrieval" && kind !== "answers") throw new VideoRagError("ARGUMENT_INVALID", "eval needs 'retrieval' or 'answers'");
  if (!values.questions) throw new VideoRagError("ARGUMENT_INVALID", "eval needs --questions <file>");
  const questions = loadQuestions(values.questions);
  await withLibrary(values, async (library) => {
    const mode = retrievalMode(values.mode);
    const without = ablations(values.without);
    if (kind === "retrieval") {
      const report = await evalRetrieval(questions, {
        rank: async (question) => {
          const found = await library.retrieve(question, { mode, limit: 50, ...(without ? { without } : {}) });
          return { videos: found.videos.slice(0, 10), modelMs: found.modelMs };
        },
      });
      print(values.json, { mode: mode ?? "default", without: without ?? [], ...report }, () =>
        [
          `questions: ${report.questions} (mode ${mode ?? "default"}${without ? `, without ${without.join(" and ")}` : ""})`,
          `recall@1 ${report.recallAt1.toFixed(3)}  recall@5 ${report.recallAt5.toFixed(3)}  recall@10 ${report.recallAt10.toFixed(3)}`,
          `search latency p50 ${report.latencyMs.p50.toFixed(1)} ms, p95 ${report.latencyMs.p95.toFixed(1)} ms (model calls excluded)`,
        ].join("\n"),
      );
      return;
    }
    const withAnswers = questions.filter((question) => question.answer);
    if (withAnswers.length === 0) throw new VideoRagError("QUESTIONS_INVALID", "no question in the file has an `answer` to compare with");
    let total = 0;
    let profile = "";
    const perQuestion = [];
    for (const question of withAnswers) {
      const answer = await library.ask(question.question, { mode });
      profile = answer.profile.summary;
      const score = rougeL(stripCitations(answer.text), question.answer ?? "");
      total += score;
      perQuestion.push({ id: question.id, rougeL: Number(score.toFixed(2)), citations: answer.citations.length });
    }
    const report = { mode: mode ?? "default", questions: withAnswers.length, rougeL: Number((total / withAnswers.length).toFixed(2)), profile, perQuestion };
    print(values.json, report, () => `questions: ${report.questions}\nROUGE-L ${report.rougeL.toFixed(2)} (${report.profile})`);
  });
}

function megabytes(bytes: number | null): string {
  return bytes === null ? "?" : `${(bytes / 1e6).toFixed(1)} MB`;
}

async function modelsCommand(values: Values, args: string[]): Promise<void> {
  const [action, ...names] = args;
  const { config } = loadConfig({ file: values.config });
  const dir = modelsDir({ modelsDir: values["models-dir"] ?? config.modelsDir });
  if (action === "list") {
    const listing = await listModels(dir);
    print(values.json, { modelsDir: dir, models: listing }, () =>
      [
        `models folder: ${dir}`,
        ...listing.map((model) => {
          const size = model.status === "missing" ? megabytes(model.expectedSizeBytes) : megabytes(model.sizeBytes);
          const line = `  ${model.status.padEnd(8)} ${model.name.padEnd(32)} ${model.kind.padEnd(20)} ${size.padStart(9)}`;
          return model.status === "present" ? line : `${line}  (without it: ${model.fallback})`;
        }),
      ].join("\n"),
    );
    return;
  }
  if (action === "verify") {
    const checks = await verifyModels(dir, names.length > 0 ? names : undefined);
    const present = checks.filter((check) => names.length > 0 || check.files.some((file) => file.status !== "missing"));
    print(values.json, { modelsDir: dir, models: present }, () =>
      present.length === 0
        ? `no known model is in ${dir} (videorag models list)`
        : present.map((check) => [`${check.ok ? "ok  " : "FAIL"} ${check.name}`, ...check.files.map((file) => `     ${file.status.padEnd(15)} ${file.path} ${file.detail}`)].join("\n")).join("\n"),
    );
    if (present.some((check) => !check.ok)) process.exitCode = 3;
    return;
  }
  if (action === "pull") {
    if (names.length === 0) throw new VideoRagError("ARGUMENT_INVALID", "models pull needs model names (see videorag models list)");
    const results = await pullModels(dir, names, { onProgress: downloadPrinter() });
    print(values.json, { modelsDir: dir, results }, () =>
      results.map((result) => `${result.name}: ${result.files.map((file) => `${file.path} ${file.status}`).join(", ")}`).join("\n"),
    );
    return;
  }
  throw new VideoRagError("ARGUMENT_INVALID", "models needs 'list', 'verify' or 'pull'");
}

async function doctorCommand(values: Values): Promise<void> {
  const { config, file, variables } = loadConfig({ file: values.config });
  if (values["models-dir"]) config.modelsDir = values["models-dir"];
  const results = await diagnose(config);
  // A configured model that is missing or a configured server that does not answer fails the check; a lite default
  // that is missing only falls back.
  const failing = results.filter((result) => !result.ok && result.required);
  print(values.json, { ok: failing.length === 0, config: file ?? null, variables, stages: results }, () =>
    [
      `configuration: ${file ?? "none (lite defaults)"}${variables.length > 0 ? `; from the environment: ${variables.join(", ")}` : ""}`,
      `models folder: ${modelsDir({ modelsDir: config.modelsDir })}`,
      ...results.map((result) => `${result.ok ? "ok  " : "--  "} ${`${result.stage}:`.padEnd(20)} ${result.provider}${result.detail ? `\n       ${result.detail}` : ""}`),
    ].join("\n"),
  );
  if (failing.length > 0) {
    process.stderr.write(`videorag: doctor: ${failing.length === 1 ? "a configured stage cannot" : `${failing.length} configured stages cannot`} run as configured: ${failing.map((result) => `${result.stage} (${result.detail.split(";")[0] || result.provider})`).join(", ")}\n`);
    process.exitCode = 4;
  }
}

/** Serves the library to AI assistants over stdio until the client disconnects; stdout carries protocol messages only. */
async function mcpCommand(values: Values): Promise<void> {
  await withLibrary(values, (library) => serveMcp(library, { version: packageVersion() }));
}

/** Serves the library until Ctrl-C or SIGTERM; then the current commit finishes and a running ingest job stays queued. */
async function serveCommand(values: Values): Promise<void> {
  const token = values.token ?? process.env.VIDEORAG_TOKEN ?? undefined;
  const port = values.port === undefined ? 7860 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new VideoRagError("ARGUMENT_INVALID", `--port must be a port number, got "${values.port}"`);
  const host = values.host ?? "127.0.0.1";
  const uploadLimitMiB = values["upload-limit"] === undefined ? undefined : Number(values["upload-limit"]);
  if (uploadLimitMiB !== undefined && !(Number.isFinite(uploadLimitMiB) && uploadLimitMiB > 0)) {
    throw new VideoRagError("ARGUMENT_INVALID", `--upload-limit must be a size in MiB above 0, got "${values["upload-limit"]}"`);
  }
  // Checked before the library opens, so a refused start leaves nothing behind.
  checkExposure(host, token);
  for (const root of values["media-root"] ?? []) {
    if (!existsSync(root)) throw new VideoRagError("INPUT_NOT_FOUND", "the media root does not exist", { subject: root });
  }
  await withLibrary(values, async (library, options) => {
    const server = await startServer({
      library,
      threads: { libraryOptions: options },
      host,
      port,
      token: token || undefined,
      mediaRoots: values["media-root"],
      corsOrigins: values.cors,
      allowedHosts: values["allowed-host"],
      ...(uploadLimitMiB !== undefined ? { uploadLimitBytes: Math.round(uploadLimitMiB * 2 ** 20) } : {}),
      log: (line) => process.stderr.write(`${new Date().toISOString()} ${line}\n`),
    });
    console.log(`videorag: serving ${library.location} at ${server.url}${token ? " (token required)" : ""}`);
    await new Promise<void>((resolve) => {
      const stop = (): void => {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        process.stderr.write("videorag: shutting down; the current commit finishes, queued jobs resume at the next start\n");
        void server.close().then(resolve);
      };
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
  });
}

/** Output piped into a program that stops reading (`| head`) is let go quietly, as other command-line tools do. */
let pipeWatched = false;
function ignoreClosedPipe(): void {
  if (pipeWatched) return;
  pipeWatched = true;
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
  });
}

export async function main(argv: string[]): Promise<void> {
  ignoreClosedPipe();
  try {
    let parsed;
    try {
      parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    } catch (error) {
      throw new VideoRagError("ARGUMENT_INVALID", error instanceof Error ? error.message : String(error));
    }
    const { values, positionals } = parsed;
    const [command, ...rest] = positionals;
    if (values.version) {
      console.log(packageVersion());
      return;
    }
    if (values.help || !command) {
      console.log((command && commandHelp(command)) || overviewHelp());
      if (!command && !values.help) process.exitCode = 2;
      return;
    }
    switch (command) {
      case "ingest":
        return await ingestCommand(values, rest);
      case "ask":
        return await askCommand(values, rest);
      case "search":
        return await searchCommand(values, rest);
      case "chapters":
        return await chaptersCommand(values, rest);
      case "summarize":
        return await summarizeCommand(values, rest);
      case "speakers":
        return await speakersCommand(values, rest);
      case "list":
        return await listCommand(values);
      case "status":
        return await statusCommand(values);
      case "extract":
        return await extractCommand(values);
      case "entity":
        return await entityCommand(values, rest);
      case "remove":
        return await removeCommand(values, rest);
      case "eval":
        return await evalCommand(values, rest);
      case "models":
        return await modelsCommand(values, rest);
      case "doctor":
        return await doctorCommand(values);
      case "serve":
        return await serveCommand(values);
      case "mcp":
        return await mcpCommand(values);
      case "worker":
        return await workerCommand(values, (work) => withLibrary(values, work));
      case "queue":
        return await queueCommand(values, rest);
      default:
        throw new VideoRagError("ARGUMENT_INVALID", `unknown command "${command}" (see videorag --help)`);
    }
  } catch (error) {
    reportError(error);
  }
}
